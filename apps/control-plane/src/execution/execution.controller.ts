import { DecisionTableChangedEvent, Subjects } from '@arbiter/contracts';
import { Policies, RequirePolicy } from '@arbiter/auth';
import { AppError } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { assertWorkflowName } from '../shared';
import { CompiledRuleSets } from './compiled-rule-sets';
import { DryRunRequest, DryRunService } from './dry-run.service';
import { ExecutionMetrics } from './execution-metrics';
import { assertFacts } from './execution.service';

/** Body `{ facts, correlationId?, bucketKey?, trace? }` (`inputs` is accepted for `facts`). */
export function parseExecuteBody(workflowName: string, body: unknown, bucketHeader?: string) {
  assertWorkflowName(workflowName);
  const request = assertFacts(body, 'body');
  const facts = assertFacts(
    request.facts ?? request.inputs ?? {},
    request.facts !== undefined ? 'facts' : 'inputs',
  );
  const text = (name: string) => {
    const value = request[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.length > 256)
      throw AppError.validation([{ field: name, message: 'must be a string of at most 256 characters' }]);
    return value;
  };
  if (request.trace !== undefined && typeof request.trace !== 'boolean')
    throw AppError.validation([{ field: 'trace', message: 'must be a boolean' }]);
  return {
    workflowName,
    facts,
    correlationId: text('correlationId'),
    bucketKey: text('bucketKey') ?? (bucketHeader ? bucketHeader.slice(0, 256) : undefined),
    trace: request.trace === true,
  };
}

/** Dry-run on the /api/v1/rule-engine routes (the execution-like result). */
@ApiTags('rule sets (rule-engine)')
@Controller('api/v1/rule-engine/rulesets')
export class RuleEngineDryRunController {
  constructor(@Inject(DryRunService) private readonly dryRuns: DryRunService) {}

  @Post(':workflowName/dry-run')
  @HttpCode(200)
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      '{ executionId, status, outputs, executionTime, rulesExecuted, sideEffectsApplied: false, errors, rulesMatched, version }',
  })
  dryRun(@Param('workflowName') workflowName: string, @Body() body: DryRunRequest) {
    return this.dryRuns.ruleEngineDryRun(workflowName, body);
  }
}

/** Dry-run on the /api/v1/control-plane routes (the result with traces); execution metrics of this node. */
@ApiTags('rule sets (control-plane)')
@Controller('api/v1/control-plane')
export class ControlPlaneDryRunController {
  constructor(
    @Inject(DryRunService) private readonly dryRuns: DryRunService,
    @Inject(ExecutionMetrics) private readonly metrics: ExecutionMetrics,
    @Inject(CompiledRuleSets) private readonly compiled: CompiledRuleSets,
  ) {}

  @Post('rulesets/:workflow/dry-run')
  @HttpCode(200)
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      '{ rulesMatched, evaluationTimeMs, traces: [{ ruleName, matched, failReason }], outputFacts, errors, version, matchedRules }',
  })
  dryRun(@Param('workflow') workflowName: string, @Body() body: DryRunRequest) {
    return this.dryRuns.controlPlaneDryRun(workflowName, body);
  }

  @Get('execution/metrics')
  @RequirePolicy(Policies.Viewer)
  executionMetrics() {
    const m = this.metrics;
    const c = this.compiled;
    return {
      executions: m.executions,
      errors: m.errors,
      byArm: m.byArm,
      shadow: { runs: m.shadowRuns, withDifferences: m.shadowDifferences },
      compiledCache: {
        size: c.size,
        hits: c.hits,
        misses: c.misses,
        compilations: c.compilations,
        evictions: c.evictions,
        invalidations: c.invalidations,
      },
    };
  }
}

/** Stored decision tables changed (any node): drop the compiled rule sets that use them. */
@Controller()
export class DecisionTableEventsController {
  constructor(@Inject(CompiledRuleSets) private readonly compiled: CompiledRuleSets) {}

  @EventPattern(Subjects.DecisionTableChanged)
  onDecisionTableChanged(@Payload() event: DecisionTableChangedEvent) {
    this.compiled.onTableChanged(event.tenantId, event.tableId);
  }
}
