import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { HubModule } from '../hub';
import { ActivateVersion } from './application/activate-version';
import { ChangeMetrics } from './application/change-metrics';
import { ChangePublisher } from './application/change-publisher';
import { InvalidateRuleSets } from './application/invalidate-rulesets';
import { LifecycleHooks } from './application/lifecycle-hooks';
import { RuleSetCache } from './application/ruleset-cache';
import { RuleSetQueries } from './application/ruleset-queries';
import { SaveRuleSet } from './application/save-ruleset';
import { RuleSetVersionResponder, ScenarioGate } from './application/scenario-gate';
import { VersionApproval } from './application/version-approval';
import { InMemoryRuleRegistry, RuleRegistry } from './domain/rule-registry';
import { ControlPlaneRuleSetsController } from './http/control-plane.controller';
import { RuleSetEventsController } from './http/events.controller';
import { RuleFlowController, TenantsController } from './http/misc.controller';
import { RuleEngineRuleSetsController } from './http/rulesets.controller';
import { RuleSetRepository } from './persistence/ruleset.repository';
import { FileRuleStore } from './store/file-rule-store';

/**
 * Rule sets: storage and versions, validation of the three shapes, lifecycle (maker-checker),
 * change propagation (bus, cache, the SignalR hub), file-backed mirror. Every change is recorded in the
 * signed audit (AuditModule) in its own transaction.
 */
@Module({
  imports: [AuditModule, HubModule],
  controllers: [
    RuleEngineRuleSetsController,
    ControlPlaneRuleSetsController,
    RuleFlowController,
    TenantsController,
    RuleSetEventsController,
  ],
  providers: [
    InMemoryRuleRegistry,
    { provide: RuleRegistry, useExisting: InMemoryRuleRegistry },
    RuleSetRepository,
    ChangeMetrics,
    RuleSetCache,
    ChangePublisher,
    LifecycleHooks,
    RuleSetQueries,
    SaveRuleSet,
    ActivateVersion,
    VersionApproval,
    InvalidateRuleSets,
    FileRuleStore,
    ScenarioGate,
    RuleSetVersionResponder,
  ],
  exports: [
    RuleSetRepository,
    RuleSetQueries,
    SaveRuleSet,
    ActivateVersion,
    RuleRegistry,
    InMemoryRuleRegistry,
    RuleSetCache,
    ChangePublisher,
    LifecycleHooks,
  ],
})
export class RuleSetsModule {}
