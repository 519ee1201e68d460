import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { ExecutionModule } from '../execution';
import { RuleSetsModule } from '../rulesets';
import { ChatCompletionsClient } from './adapters/chat-completions';
import { CopilotDrafts } from './application/copilot-drafts';
import { DraftRuleSet } from './application/draft-ruleset';
import { ProvenanceHook } from './application/provenance-hook';
import { CopilotController } from './http/copilot.controller';
import { ProvenanceRepository } from './persistence/provenance.repository';

/**
 * Copilot drafts: rule sets drafted by a model (OpenAI-compatible chat completions, `Copilot:*`), saved
 * as Draft versions with a tamper-evident provenance row that approval and activation keep current.
 */
@Module({
  imports: [AuditModule, RuleSetsModule, ExecutionModule],
  controllers: [CopilotController],
  providers: [ChatCompletionsClient, ProvenanceRepository, DraftRuleSet, CopilotDrafts, ProvenanceHook],
  exports: [DraftRuleSet],
})
export class CopilotModule {}
