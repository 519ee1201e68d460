import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { ExecutionAuditModule } from '../execution-audit';
import { RuleSetsModule } from '../rulesets';
import { CanaryRouter } from './application/canary-router';
import { CanaryService } from './application/canary.service';
import { CanaryEventsController } from './http/canary-events.controller';
import { CanaryController } from './http/canary.controller';
import { ControlPlaneCanaryController } from './http/control-plane-canary.controller';
import { RuleEngineCanaryController } from './http/rule-engine-canary.controller';
import { CanaryRolloutRepository } from './persistence/canary-rollouts.repository';

/**
 * Canary rollouts (on the /api/v1/canary, /api/v1/rule-engine and /api/v1/control-plane routes), tenant rule assignments, and the in-memory CanaryRouter the
 * executor asks before each execution. Transitions are audited in the tenant's signed audit chain.
 */
@Module({
  imports: [RuleSetsModule, AuditModule, ExecutionAuditModule],
  controllers: [
    CanaryController,
    RuleEngineCanaryController,
    ControlPlaneCanaryController,
    CanaryEventsController,
  ],
  providers: [CanaryRolloutRepository, CanaryRouter, CanaryService],
  exports: [CanaryRouter],
})
export class CanaryModule {}
