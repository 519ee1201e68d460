import type { Facts, RuleSetEvaluationError, RuleTrace } from '@arbiter/rule-engine';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { ExecutionArm } from '../execution-audit';
import type { ControlPlaneDryRunResult, RuleEngineDryRunResult } from './dry-run.service';
import { EXECUTION_ROUTER_MODES, type ExecutionRouterMode } from './execution.settings';
import { ExecutionResultErrorCodes } from './execution-errors';
import type { ExecutionResult } from './execution.service';

const EXECUTION_ARMS: ExecutionArm[] = ['active', 'canary', 'traditional'];
const OPEN_OBJECT = { type: 'object', additionalProperties: true } as const;

/** A failure while the rule set ran: the execution still answers (HTTP 200, status `error`). */
export class EvaluationErrorView implements RuleSetEvaluationError {
  @ApiPropertyOptional({
    description: 'Rule name or node id, when the error belongs to one.',
    example: 'score',
  })
  ruleName?: string;

  @ApiProperty({
    description:
      "Names the problem: the rule engine's (`EXPRESSION_FAILED`, `SANDBOX_TIMEOUT`, `CONNECTOR_FAILED`, " +
      '`DEADLINE_EXCEEDED`, `SUB_FLOW_CYCLE`, …), an execution problem of a sub flow (`SUB_FLOW_NOT_FOUND`, …), ' +
      `or the control plane's own (${Object.values(ExecutionResultErrorCodes)
        .map((c) => `\`${c}\``)
        .join(', ')}).`,
    example: 'EXPRESSION_FAILED',
  })
  code!: string;

  @ApiProperty({ example: "cannot compare 'lots' with 1000" })
  message!: string;
}

/** One rule (rules, legacy, code-based) or node (flow graph) as it ran. */
export class RuleTraceView implements RuleTrace {
  @ApiProperty({ description: 'Rule name, or node id in a flow graph.', example: 'Big amount' })
  ruleName!: string;

  @ApiPropertyOptional({ description: 'Flow graph only: the node kind.', example: 'condition' })
  kind?: string;

  @ApiProperty({ example: true })
  matched!: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why the rule did not match or failed (null when it matched).',
    example: null,
  })
  failReason!: string | null;

  @ApiPropertyOptional({
    description: 'The rule or node did not run (branch not taken, side effect suppressed).',
  })
  skipped?: boolean;

  @ApiPropertyOptional({
    type: 'number',
    description: 'Milliseconds spent in the rule or node.',
    example: 0.012,
  })
  durationMs?: number;

  @ApiPropertyOptional({ ...OPEN_OBJECT, description: 'Facts the rule or node produced.' })
  outputs?: Facts;
}

/** The answer of `POST /api/v1/rule-engine/execute/{workflowName}`. */
export class ExecutionResultView implements ExecutionResult {
  @ApiProperty({
    format: 'uuid',
    description: 'A time-ordered id (UUID version 7), also the key of the execution audit entry.',
    example: '01934f6e-2b7c-7a1d-9f3e-5c2a8b4d6e10',
  })
  executionId!: string;

  @ApiProperty({ example: 'loan-approval' })
  workflowName!: string;

  @ApiProperty({ description: "The caller's tenant.", example: 'acme' })
  tenantId!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The version that ran (null on the traditional path).',
    example: 4,
  })
  version!: number | null;

  @ApiProperty({
    enum: ['success', 'error'],
    description: '`error` when the run reported errors (in `errors`); the HTTP status is 200 either way.',
    example: 'success',
  })
  status!: 'success' | 'error';

  @ApiProperty({
    enum: [...EXECUTION_ROUTER_MODES],
    description: 'The execution router mode (`RuleEngineOptions:ExecutionRouter:Mode`).',
    example: 'Rules',
  })
  mode!: ExecutionRouterMode;

  @ApiProperty({
    enum: EXECUTION_ARMS,
    description:
      'Which path answered: the active version, a canary version (the caller is a canary target), or the traditional path.',
    example: 'active',
  })
  arm!: ExecutionArm;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The running canary rollout of the workflow, on either arm.',
    example: null,
  })
  rolloutId!: string | null;

  @ApiProperty({
    description: "The request's `correlationId`, else its correlation id.",
    example: 'order-7731',
  })
  correlationId!: string;

  @ApiProperty({
    ...OPEN_OBJECT,
    description: 'The output facts: merged outputs of the matched rules or executed nodes.',
    example: { tier: 'gold', review: true },
  })
  outputs!: Facts;

  @ApiProperty({
    type: 'string',
    isArray: true,
    description: 'Rules that matched (flow graph: nodes that succeeded), in evaluation order.',
    example: ['Big amount'],
  })
  rulesMatched!: string[];

  @ApiProperty({ type: EvaluationErrorView, isArray: true, example: [] })
  errors!: EvaluationErrorView[];

  @ApiProperty({ type: 'number', minimum: 0, example: 0.184 })
  executionTimeMs!: number;

  @ApiPropertyOptional({
    type: RuleTraceView,
    isArray: true,
    description: 'Per rule or node, when the request asked for `trace: true`.',
  })
  traces?: RuleTraceView[];
}

/** A dry-run on the /api/v1/rule-engine routes (spec 1, dry-run result shape B). */
export class RuleEngineDryRunResultView implements RuleEngineDryRunResult {
  @ApiProperty({ format: 'uuid', example: '01934f6e-2b7c-7a1d-9f3e-5c2a8b4d6e10' })
  executionId!: string;

  @ApiProperty({ enum: ['success', 'error'], example: 'success' })
  status!: 'success' | 'error';

  @ApiProperty({ ...OPEN_OBJECT, example: { tier: 'gold', seen: true } })
  outputs!: Facts;

  @ApiProperty({
    pattern: '^\\d+\\.\\d{3}ms$',
    description: 'The evaluation time with its unit.',
    example: '0.412ms',
  })
  executionTime!: string;

  @ApiProperty({ type: 'integer', minimum: 0, example: 2 })
  rulesExecuted!: number;

  @ApiProperty({ enum: [false], description: 'Always false: nothing runs for real in a dry-run.' })
  sideEffectsApplied!: false;

  @ApiProperty({ type: EvaluationErrorView, isArray: true, example: [] })
  errors!: EvaluationErrorView[];

  @ApiProperty({ type: 'string', isArray: true, example: ['Big amount', 'Any amount'] })
  rulesMatched!: string[];

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The stored version that ran (null for a `ruleSet` document).',
    example: 1,
  })
  version!: number | null;
}

/** A rule's verdict in a control-plane dry-run. */
export class DryRunTraceView {
  @ApiProperty({ example: 'Big amount' })
  ruleName!: string;

  @ApiProperty({ example: true })
  matched!: boolean;

  @ApiProperty({ type: 'string', nullable: true, example: null })
  failReason!: string | null;

  @ApiPropertyOptional({ description: 'Flow graph only: the node kind.', example: 'template' })
  kind?: string;

  @ApiPropertyOptional({ description: 'The node did not run (a connector on a dry-run).' })
  skipped?: boolean;

  @ApiPropertyOptional({
    ...OPEN_OBJECT,
    description: 'The facts the rule or node produced (absent when it produced none).',
    example: { letter: 'Dear Ann' },
  })
  outputs?: Facts;
}

/** A dry-run on the /api/v1/control-plane routes (spec 1, dry-run result shape A). */
export class ControlPlaneDryRunResultView implements ControlPlaneDryRunResult {
  @ApiProperty({ description: 'Whether any rule matched.', example: true })
  rulesMatched!: boolean;

  @ApiProperty({ type: 'number', minimum: 0, example: 0.412 })
  evaluationTimeMs!: number;

  @ApiProperty({ type: DryRunTraceView, isArray: true })
  traces!: DryRunTraceView[];

  @ApiProperty({ ...OPEN_OBJECT, example: { tier: 'gold', seen: true } })
  outputFacts!: Facts;

  @ApiProperty({ type: EvaluationErrorView, isArray: true, example: [] })
  errors!: EvaluationErrorView[];

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The stored version that ran (null for a `ruleSet` document).',
    example: 2,
  })
  version!: number | null;

  @ApiProperty({
    type: 'string',
    isArray: true,
    description: 'Names of the rules that matched.',
    example: ['Big amount'],
  })
  matchedRules!: string[];
}

export class ExecutionArmTallyView {
  @ApiProperty({ type: 'integer', minimum: 0 })
  executions!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  errors!: number;
}

export class ShadowTallyView {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Shadow candidates run.' })
  runs!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Of which with output differences.' })
  withDifferences!: number;
}

export class CompiledCacheView {
  @ApiProperty({ type: 'integer', minimum: 0 })
  size!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  hits!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  misses!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  compilations!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  evictions!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  invalidations!: number;
}

/** Execution totals of this node since it started. */
export class ExecutionMetricsView {
  @ApiProperty({ type: 'integer', minimum: 0 })
  executions!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  errors!: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ExecutionArmTallyView) },
    description: 'Per arm (`active`, `canary`, `traditional`).',
  })
  byArm!: Record<string, ExecutionArmTallyView>;

  @ApiProperty({ type: ShadowTallyView })
  shadow!: ShadowTallyView;

  @ApiProperty({ type: CompiledCacheView })
  compiledCache!: CompiledCacheView;
}
