import { Module } from '@nestjs/common';
import { ExecutionAuditModule } from '../execution-audit/execution-audit.module';
import { AuditLog } from '../rulesets/audit/audit-log';
import { RuleSetsModule } from '../rulesets/rulesets.module';
import { CanaryRolloutRepository } from './application/canary-rollouts.repository';
import { CanaryRouter } from './application/canary-router';
import { CanaryService } from './application/canary.service';
import { CanaryEventsController } from './http/canary-events.controller';
import { CanaryController } from './http/canary.controller';
import { ControlPlaneCanaryController } from './http/control-plane-canary.controller';
import { RuleEngineCanaryController } from './http/rule-engine-canary.controller';

/**
 * Canary rollouts (three route families), tenant rule assignments, and the in-memory CanaryRouter the
 * executor asks before each execution. Transitions are audited in the rule set audit chain (AuditLog is
 * stateless: this module holds its own instance over the shared AuditSigner).
 */
@Module({
  imports: [RuleSetsModule, ExecutionAuditModule],
  controllers: [
    CanaryController,
    RuleEngineCanaryController,
    ControlPlaneCanaryController,
    CanaryEventsController,
  ],
  providers: [AuditLog, CanaryRolloutRepository, CanaryRouter, CanaryService],
  exports: [CanaryRouter],
})
export class CanaryModule {}
