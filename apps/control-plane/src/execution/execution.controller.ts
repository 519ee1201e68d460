import { DecisionTableChangedEvent, Subjects } from '@arbiter/contracts';
import { Policies, RequirePermissions, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors, AppError } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { assertWorkflowName, ControlPlanePermissions, METRICS_PERMISSION_NOTE } from '../shared';
import { CompiledRuleSets } from './compiled-rule-sets';
import { DryRunRequestBody } from './dry-run.dto';
import { DryRunService } from './dry-run.service';
import { ExecutionErrorFamily } from './execution-errors';
import { ExecutionMetrics } from './execution-metrics';
import { assertFacts } from './execution.service';
import {
  ControlPlaneDryRunResultView,
  ExecutionArmTallyView,
  ExecutionMetricsView,
  RuleEngineDryRunResultView,
} from './execution.views';

const DRY_RUN = {
  description:
    'Validates, compiles and evaluates with side effects off (connector nodes are skipped; no version, audit ' +
    'entry or quota use is written), capped at 10 s. A stored version (`{ inputs, version? }`, the active ' +
    'version by default) or a rule set document (`{ ruleSet, context, contextType? }`). Failures while ' +
    'running are in `errors` (HTTP 200); an invalid request or rule set is a 400.',
  examples: {
    storedVersion: { summary: 'A stored version', value: { inputs: { amount: 5000 }, version: 2 } },
    document: {
      summary: 'A rule set document',
      value: {
        ruleSet: {
          rules: [
            { id: 'big', name: 'Big amount', condition: 'input.amount > 1000', output: { tier: 'gold' } },
          ],
        },
        context: { amount: 2000 },
        contextType: 'json',
      },
    },
  },
};

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
  const window =
    request.window === undefined || request.window === null ? undefined : windowOf(request.window);
  return {
    workflowName,
    facts,
    correlationId: text('correlationId'),
    bucketKey: text('bucketKey') ?? (bucketHeader ? bucketHeader.slice(0, 256) : undefined),
    trace: request.trace === true,
    ...(window ? { window } : {}),
  };
}

const WINDOW_CONFIG_ID = /^[A-Za-z0-9_-]{1,100}$/;
const KEY_FACT = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*){0,15}$/;

/** The execute body's `window`: `{ configId, keyFact }` (an event-window id and a fact's dot path). */
function windowOf(value: unknown): { configId: string; keyFact: string } {
  const problems: { field: string; message: string }[] = [];
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw AppError.validation([{ field: 'window', message: 'must be an object { configId, keyFact }' }]);
  const { configId, keyFact } = value as Record<string, unknown>;
  if (typeof configId !== 'string' || !WINDOW_CONFIG_ID.test(configId))
    problems.push({ field: 'window.configId', message: 'must match [A-Za-z0-9_-]{1,100}' });
  if (typeof keyFact !== 'string' || !KEY_FACT.test(keyFact))
    problems.push({
      field: 'window.keyFact',
      message: 'must be a fact name or dot path (e.g. userId, user.id)',
    });
  if (problems.length) throw AppError.validation(problems);
  return { configId: configId as string, keyFact: keyFact as string };
}

/** Dry-run on the /api/v1/rule-engine routes (the execution-like result). */
@ApiTags('execution')
@ApiErrorFamily(ExecutionErrorFamily)
@Controller('api/v1/rule-engine/rulesets')
export class RuleEngineExecutionController {
  constructor(@Inject(DryRunService) private readonly dryRuns: DryRunService) {}

  @Post(':workflowName/dry-run')
  @HttpCode(200)
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({ summary: 'Dry-run a workflow (execution-like result)', description: DRY_RUN.description })
  @ApiParam({ name: 'workflowName', description: 'The workflow name.', example: 'loan-approval' })
  @ApiBody({ type: DryRunRequestBody, examples: DRY_RUN.examples })
  @ApiOkResponse({
    description: 'The dry-run result (spec 1, shape B)',
    type: RuleEngineDryRunResultView,
  })
  @ApiErrors(404, 422, 503)
  dryRun(@Param('workflowName') workflowName: string, @Body() body: DryRunRequestBody) {
    return this.dryRuns.ruleEngineDryRun(workflowName, body);
  }
}

/** Dry-run on the /api/v1/control-plane routes (the result with traces); execution metrics of this node. */
@ApiTags('execution')
@ApiErrorFamily(ExecutionErrorFamily)
@ApiExtraModels(ExecutionArmTallyView)
@Controller('api/v1/control-plane')
export class ControlPlaneExecutionController {
  constructor(
    @Inject(DryRunService) private readonly dryRuns: DryRunService,
    @Inject(ExecutionMetrics) private readonly counters: ExecutionMetrics,
    @Inject(CompiledRuleSets) private readonly compiled: CompiledRuleSets,
  ) {}

  @Post('rulesets/:workflow/dry-run')
  @HttpCode(200)
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({ summary: 'Dry-run a workflow (result with traces)', description: DRY_RUN.description })
  @ApiParam({ name: 'workflow', description: 'The workflow name.', example: 'loan-approval' })
  @ApiBody({ type: DryRunRequestBody, examples: DRY_RUN.examples })
  @ApiOkResponse({
    description: 'The dry-run result (spec 1, shape A)',
    type: ControlPlaneDryRunResultView,
  })
  @ApiErrors(404, 422, 503)
  dryRun(@Param('workflow') workflowName: string, @Body() body: DryRunRequestBody) {
    return this.dryRuns.controlPlaneDryRun(workflowName, body);
  }

  @Get('execution/metrics')
  @RequirePermissions(ControlPlanePermissions.Metrics)
  @ApiOperation({
    summary: 'Execution metrics of this node',
    description:
      'Executions and errors (per arm), shadow runs and the compiled rule set cache, since the node started. ' +
      METRICS_PERMISSION_NOTE,
  })
  @ApiOkResponse({ description: 'The totals', type: ExecutionMetricsView })
  metrics(): ExecutionMetricsView {
    const m = this.counters;
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
