import { Module } from '@nestjs/common';
import { ChangeMetrics } from './application/change-metrics';
import { ChangePublisher } from './application/change-publisher';
import { RuleSetCache } from './application/ruleset-cache';
import { RuleSetsService } from './application/rulesets.service';
import { AuditLog } from './audit/audit-log';
import { AuditSigner } from './audit/audit-signer';
import { InMemoryRuleRegistry, RuleRegistry } from './domain/rule-registry';
import { ControlPlaneRuleSetsController } from './http/control-plane.controller';
import { RuleSetEventsController } from './http/events.controller';
import { HubNegotiateController, RuleFlowController, TenantsController } from './http/misc.controller';
import { RuleEngineRuleSetsController } from './http/rulesets.controller';
import { SignalRHub } from './hub/signalr-hub';
import { FileRuleStore } from './store/file-rule-store';

/**
 * Rule sets: storage and versions, validation of the three shapes, lifecycle (maker-checker),
 * signed hash-chained audit, change propagation (bus, cache, SignalR hub), file-backed mirror.
 */
@Module({
  controllers: [
    RuleEngineRuleSetsController,
    ControlPlaneRuleSetsController,
    RuleFlowController,
    TenantsController,
    HubNegotiateController,
    RuleSetEventsController,
  ],
  providers: [
    InMemoryRuleRegistry,
    { provide: RuleRegistry, useExisting: InMemoryRuleRegistry },
    AuditSigner,
    AuditLog,
    ChangeMetrics,
    RuleSetCache,
    ChangePublisher,
    RuleSetsService,
    SignalRHub,
    FileRuleStore,
  ],
  exports: [RuleSetsService, RuleRegistry, InMemoryRuleRegistry, AuditSigner, RuleSetCache, SignalRHub],
})
export class RuleSetsModule {}
