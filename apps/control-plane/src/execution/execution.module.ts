import { ShadowCandidateCheck } from './shadow-candidate-check';
import { Module } from '@nestjs/common';
import { CanaryModule, CanaryRouter } from '../canary';
import { ExecutionAuditModule } from '../execution-audit';
import { QuotaGate, QuotasModule } from '../quotas';
import { RuleRegistry, RuleSetsModule } from '../rulesets';
import { DecisionTableClient } from './adapters/decision-table-client';
import { EventWindowClient } from './adapters/event-window-client';
import { HttpConnectorInvoker } from './adapters/http-connectors';
import { CODE_RULES, CompiledRuleSets } from './compiled-rule-sets';
import { DryRunService } from './dry-run.service';
import { DryRunWorkers } from './dry-run-workers';
import { HeavyExecutions } from './heavy-executions';
import { ExecuteHotRoute } from './execute.route';
import {
  ControlPlaneExecutionController,
  DecisionTableEventsController,
  RuleEngineExecutionController,
} from './execution.controller';
import { ExecutionMetrics } from './execution-metrics';
import { ExecutionService } from './execution.service';
import { CanaryRouting, ExecutionQuota, NoTraditionalExecution, TraditionalExecution } from './ports';
import { RuleSetVersions } from './rule-set-versions';

/**
 * Rule execution: the execute hot route and the execution router, compiled rule sets per tenant and
 * version, dry-run (the /api/v1/rule-engine and /api/v1/control-plane routes), the ports to canary routing, quotas, the execution audit and
 * the traditional path, and the adapters to stored decision tables and HTTP connectors.
 */
@Module({
  imports: [RuleSetsModule, ExecutionAuditModule, CanaryModule, QuotasModule],
  controllers: [
    RuleEngineExecutionController,
    ControlPlaneExecutionController,
    DecisionTableEventsController,
  ],
  providers: [
    ShadowCandidateCheck,
    DecisionTableClient,
    EventWindowClient,
    HttpConnectorInvoker,
    RuleSetVersions,
    { provide: CODE_RULES, useExisting: RuleRegistry },
    CompiledRuleSets,
    ExecutionMetrics,
    {
      provide: CanaryRouting,
      inject: [CanaryRouter],
      useFactory: (router: CanaryRouter): CanaryRouting => ({
        route: (owner, workflow, subject, bucketKey) => router.route(owner, workflow, subject, bucketKey),
        activeRollout: (owner, workflow) => router.liveRollout(owner, workflow),
      }),
    },
    { provide: ExecutionQuota, useExisting: QuotaGate },
    { provide: TraditionalExecution, useClass: NoTraditionalExecution },
    ExecutionService,
    DryRunWorkers,
    HeavyExecutions,
    DryRunService,
    ExecuteHotRoute,
  ],
  exports: [ExecutionService, DryRunService, CompiledRuleSets, DecisionTableClient],
})
export class ExecutionModule {}
