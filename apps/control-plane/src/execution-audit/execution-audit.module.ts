import { Module } from '@nestjs/common';
import { RuleSetsModule } from '../rulesets';
import { BatchedExecutionAuditSink } from './batched-execution-audit.sink';
import { ExecutionAuditController } from './execution-audit.controller';
import { ExecutionAuditMetrics } from './execution-audit.metrics';
import { ExecutionAuditReader } from './execution-audit.reader';
import { ExecutionAuditRepository } from './execution-audit.repository';
import { ExecutionAuditQueries, ExecutionAuditSink } from './execution-record';

/**
 * Execution audit: the batched sink of the hot path (never drops silently: retry, back-pressure, spill
 * file + replay), `GET /api/v1/audit/workflow/{workflowName}`, arm statistics for canary rollouts, and
 * `GET /api/v1/control-plane/execution-audit/metrics`.
 */
@Module({
  // the 404 for a workflow the tenant does not have asks the rule sets' owner (`RuleSetQueries.exists`)
  imports: [RuleSetsModule],
  controllers: [ExecutionAuditController],
  providers: [
    ExecutionAuditRepository,
    ExecutionAuditMetrics,
    BatchedExecutionAuditSink,
    { provide: ExecutionAuditSink, useExisting: BatchedExecutionAuditSink },
    ExecutionAuditReader,
    { provide: ExecutionAuditQueries, useExisting: ExecutionAuditReader },
  ],
  exports: [ExecutionAuditSink, ExecutionAuditQueries, BatchedExecutionAuditSink],
})
export class ExecutionAuditModule {}
