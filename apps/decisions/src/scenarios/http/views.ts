import {
  SCENARIO_SCOPES,
  SCENARIO_STATUSES,
  SCENARIO_TYPES,
  type MutationOperator,
} from '@arbiter/scenarios';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { AiProposalsView } from '../application/ai-proposals.service';
import type {
  CiRunResult,
  FailureView,
  RunReport,
  StatisticsView,
} from '../application/scenario-runs.service';
import type { PlanView, RunView, ScenarioResultView, ScenarioView } from '../application/scenario-views';
import type {
  WorkflowFailureView,
  WorkflowPlanView,
  WorkflowRunReport,
} from '../application/workflow-scenarios.service';

/**
 * Response bodies of the scenario routes (spec 2, "Scenario records"). Each class implements the type the
 * application service returns, so the compiler keeps the two together.
 */

const OPEN_MAP = { type: 'object', additionalProperties: true } as const;
const ID = '0b6f3c1e-8a4d-4e7f-9b2c-5d6e7f8a9b0c';
/** Any JSON value, `null` included. */
const JSON_VALUE = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: {} },
    { type: 'object', additionalProperties: true, nullable: true },
  ],
} as const;

export class ExpectedBehaviorView {
  @ApiProperty({
    type: [String],
    description: "Row ids that must match, in the engine's order.",
    example: ['r2'],
  })
  matchedRows!: string[];
  @ApiProperty({
    ...OPEN_MAP,
    nullable: true,
    description: 'Output values the table must give.',
    example: { risk: 'low' },
  })
  outputs!: Record<string, unknown> | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Evaluation error code expected instead of a result.',
  })
  errorCode?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The row the scenario was built to exercise.',
  })
  targetRowId?: string | null;
  @ApiProperty({
    example: 'every condition of r2 accepts the input: row r2 must match, output {"risk":"low"}',
  })
  description!: string;
}

export class FailureFindingView {
  @ApiProperty({ example: 'r1' }) rowId!: string;
  @ApiProperty({ type: String, nullable: true, example: 'amount' }) column!: string | null;
  @ApiPropertyOptional({
    ...JSON_VALUE,
    description: 'The input value involved (any JSON value).',
    example: 5000,
  } as never)
  value?: unknown;
  @ApiPropertyOptional({ description: 'The condition as the table run has it.', example: '>= 5001' })
  cell?: string;
  @ApiProperty({ example: "amount = 5000 is outside '>= 5001' of r1, which had to match" }) message!: string;
}

export class ScenarioResultRecordView implements ScenarioResultView {
  @ApiProperty({ example: ID }) runId!: string;
  @ApiProperty({ example: ID }) scenarioId!: string;
  @ApiProperty({ enum: SCENARIO_STATUSES, example: 'Passed' }) status!: string;
  @ApiProperty({ description: 'The evaluation completed (or refused with the expected error).' })
  isSuccess!: boolean;
  @ApiProperty() matchesExpectation!: boolean;
  @ApiProperty({ ...OPEN_MAP, nullable: true, example: { risk: 'low' } }) outputFacts!: Record<
    string,
    unknown
  > | null;
  @ApiProperty({ type: [String], example: ['r2'] }) matchedRows!: string[];
  @ApiProperty({ type: [String] }) errors!: string[];
  @ApiProperty({ description: 'Milliseconds.', example: 0.012 }) duration!: number;
  @ApiProperty({
    type: [FailureFindingView],
    description: 'Why it failed: which row, which condition, which input.',
  })
  analysis!: FailureFindingView[];
}

export class ScenarioOriginView {
  @ApiPropertyOptional({ example: 'r1' }) rowId?: string;
  @ApiPropertyOptional({ example: 'amount' }) column?: string;
  @ApiPropertyOptional({ example: '>= 5000' }) cell?: string;
  @ApiPropertyOptional({
    description:
      '`below`, `on`, `above`, `inside`, `listed`, `unlisted`, `boolean`, `missing`, `null`, `pairwise`, `ai`.',
    example: 'below',
  })
  probe?: string;
}

export class ScenarioRecordView implements ScenarioView {
  @ApiProperty({ example: ID }) id!: string;
  @ApiProperty({ example: ID }) planId!: string;
  @ApiProperty({ description: 'The table the scenario was generated for (its name).', example: 'Loan risk' })
  seedRuleCode!: string;
  @ApiProperty({ example: "r1: amount below '>= 5000' (4999)" }) scenarioName!: string;
  @ApiProperty({ enum: SCENARIO_TYPES, example: 'McDc' }) type!: string;
  @ApiProperty({ enum: SCENARIO_SCOPES, example: 'Rule' }) scope!: string;
  @ApiProperty({ ...OPEN_MAP, example: { amount: 4999, risk: 'high' } }) inputFacts!: Record<string, unknown>;
  @ApiProperty({ description: 'Canonical hash of the input facts (duplicates are removed by it).' })
  inputHash!: string;
  @ApiProperty({ type: ExpectedBehaviorView }) expectedBehavior!: ExpectedBehaviorView;
  @ApiProperty({ type: ScenarioOriginView }) origin!: ScenarioOriginView;
  @ApiProperty({ enum: SCENARIO_STATUSES, example: 'Pending' }) status!: string;
  @ApiProperty({
    description: 'The expectation was confirmed by a person: regeneration keeps the scenario as it is.',
  })
  confirmed!: boolean;
  @ApiProperty({ type: String, nullable: true }) confirmedBy!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) confirmedAt!: string | null;
  @ApiPropertyOptional({
    ...OPEN_MAP,
    nullable: true,
    description: 'Its result in the latest run, a scenario result (GET by id only; null before any run).',
  })
  lastResult?: ScenarioResultRecordView | null;
}

export class PlanRecordView implements PlanView {
  @ApiProperty({ example: ID }) id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: ID,
    description: "The table (null for a workflow's plan).",
  })
  tableId!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "The table version the expectations were generated from (null for a workflow's plan).",
    example: 1,
  })
  tableVersion!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The control-plane workflow of a `Workflow` plan.',
    example: null,
  })
  workflowName!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The workflow version the expectations were generated from.',
    example: null,
  })
  workflowVersion!: number | null;
  @ApiProperty({ example: 'Loan risk' }) seedRuleCode!: string;
  @ApiProperty({ enum: SCENARIO_SCOPES, example: 'Rule' }) scope!: string;
  @ApiProperty({ example: 1 }) seed!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The model whose proposals the plan holds, if any.',
  })
  aiModelUsed!: string | null;
  @ApiProperty({ description: 'Milliseconds.', example: 3.2 }) generationDuration!: number;
  @ApiProperty({ description: 'Scenarios built before duplicates were removed.' }) candidates!: number;
  @ApiProperty() duplicatesRemoved!: number;
  @ApiProperty({
    description: 'Of `duplicatesRemoved`, those dropped as near duplicates (vector similarity).',
  })
  nearDuplicatesRemoved!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The embedding that judged near duplicates: `openai:<model>` (`Scenarios:EmbeddingBaseUrl`), ' +
      '`local-facts-hash-v1` (no model), or null when only the hash removes duplicates.',
  })
  embeddingModelUsed!: string | null;
  @ApiProperty() scenarioCount!: number;
  @ApiProperty({ description: 'Scenarios confirmed by a person, kept as they were.' }) confirmedKept!: number;
  @ApiProperty({
    type: [ScenarioRecordView],
    description: 'The first 200 scenarios by position (the list route pages through all; empty in lists).',
  })
  scenarios!: ScenarioRecordView[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) modifiedAt!: string;
}

export class GateSettingsView {
  @ApiProperty() passed!: boolean;
  @ApiProperty({ example: 90 }) minCoverage!: number;
  @ApiProperty({ type: Number, nullable: true }) minMutationScore!: number | null;
  @ApiProperty({ type: [String] }) reasons!: string[];
}

export class RunRecordView implements RunView {
  @ApiProperty({ example: ID }) id!: string;
  @ApiProperty({ example: ID }) planId!: string;
  @ApiProperty({ example: 2 }) tableVersion!: number;
  @ApiProperty({ enum: ['Run', 'Gate'] }) kind!: string;
  @ApiProperty() total!: number;
  @ApiProperty() passed!: number;
  @ApiProperty() failed!: number;
  @ApiProperty() errored!: number;
  @ApiProperty({
    ...OPEN_MAP,
    description: 'Rows hit and both sides of every condition (see the CI run result).',
  })
  coverage!: Record<string, unknown>;
  @ApiProperty({ ...OPEN_MAP, nullable: true, description: 'The mutation report of a gate run.' })
  mutation!: Record<string, unknown> | null;
  @ApiProperty({
    ...OPEN_MAP,
    nullable: true,
    description: 'Gate runs: `{ passed, minCoverage, minMutationScore, reasons }`.',
  })
  gate!: GateSettingsView | null;
  @ApiProperty({ description: 'Milliseconds.' }) duration!: number;
  @ApiProperty() createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class FailureRecordView implements FailureView {
  @ApiProperty({ example: ID }) scenarioId!: string;
  @ApiProperty() scenarioName!: string;
  @ApiProperty({ enum: ['Failed', 'Error'] }) status!: string;
  @ApiProperty({ ...OPEN_MAP }) inputFacts!: Record<string, unknown>;
  @ApiProperty({ ...OPEN_MAP, description: '`{ matchedRows, outputs, errorCode }`' })
  expected!: FailureView['expected'];
  @ApiProperty({ ...OPEN_MAP, description: '`{ matchedRows, outputs, errors }`' })
  actual!: FailureView['actual'];
  @ApiProperty({ type: [FailureFindingView] }) analysis!: FailureFindingView[];
}

export class RunReportView extends RunRecordView implements RunReport {
  @ApiProperty({ example: ID }) tableId!: string;
  @ApiProperty({
    type: [FailureRecordView],
    description: 'The first 100 failed scenarios with their analysis.',
  })
  failures!: FailureRecordView[];
}

export class RowCoverageView {
  @ApiProperty() total!: number;
  @ApiProperty() hit!: number;
  @ApiProperty({ example: 100 }) percent!: number;
  @ApiProperty({ type: [String] }) unhit!: string[];
}
export class ConditionCoverageView {
  @ApiProperty({ description: 'Conditions other than `-`.' }) total!: number;
  @ApiProperty() bothSides!: number;
  @ApiProperty() trueOnly!: number;
  @ApiProperty() falseOnly!: number;
  @ApiProperty() neither!: number;
  @ApiProperty({ description: 'Sides seen over sides (two per condition), percent.' }) percent!: number;
}
export class CoverageView {
  @ApiProperty({ type: RowCoverageView }) rows!: RowCoverageView;
  @ApiProperty({ type: ConditionCoverageView }) conditions!: ConditionCoverageView;
  @ApiProperty({
    type: 'array',
    items: OPEN_MAP,
    description: 'Conditions not seen both true and false (first 200).',
  })
  uncovered!: CiRunResult['coverage']['uncovered'];
}
export class ScenarioCountsView {
  @ApiProperty() total!: number;
  @ApiProperty() passed!: number;
  @ApiProperty() failed!: number;
  @ApiProperty() errored!: number;
}
export class MutantView {
  @ApiProperty({ enum: ['flip-comparison', 'move-boundary', 'flip-inclusion', 'drop-row'] })
  operator!: MutationOperator;
  @ApiProperty() rowId!: string;
  @ApiProperty({ type: String, nullable: true }) column!: string | null;
  @ApiProperty({ type: String, nullable: true }) from!: string | null;
  @ApiProperty({ type: String, nullable: true }) to!: string | null;
  @ApiProperty({ example: "r1 amount: '>= 5000' → '>= 5001'" }) description!: string;
}
export class MutationReportView {
  @ApiProperty() mutants!: number;
  @ApiProperty() killed!: number;
  @ApiProperty() survived!: number;
  @ApiProperty({ description: 'Mutants whose table no longer compiles (not counted).' }) invalid!: number;
  @ApiProperty({ description: 'Killed over mutants, percent.', example: 96.5 }) score!: number;
  @ApiProperty({ type: [MutantView], description: 'Surviving mutants (first 100).' })
  survivors!: MutantView[];
  @ApiProperty({ description: 'More mutants than Scenarios:MaxMutants: a seeded sample was run.' })
  sampled!: boolean;
  @ApiProperty({ description: 'Milliseconds.' }) duration!: number;
}

export class CiRunResultView implements CiRunResult {
  @ApiProperty({ example: ID }) runId!: string;
  @ApiProperty({ example: ID }) planId!: string;
  @ApiProperty({ example: ID }) tableId!: string;
  @ApiProperty({ example: 'Loan risk' }) tableName!: string;
  @ApiProperty({ description: 'The candidate version run.', example: 2 }) tableVersion!: number;
  @ApiProperty({ description: "The version the plan's expectations come from.", example: 1 })
  planVersion!: number;
  @ApiProperty({
    description:
      'No failed or errored scenario, row coverage at least minCoverage (and the mutation score at least minMutationScore when set).',
  })
  passed!: boolean;
  @ApiProperty({ type: [String], example: ['row coverage 75 % is below 90 %'] }) reasons!: string[];
  @ApiProperty({ type: GateSettingsView }) gate!: GateSettingsView;
  @ApiProperty({ type: CoverageView }) coverage!: CoverageView;
  @ApiProperty({ type: ScenarioCountsView }) scenarios!: ScenarioCountsView;
  @ApiProperty({ type: [FailureRecordView] }) failures!: FailureRecordView[];
  @ApiProperty({
    ...OPEN_MAP,
    nullable: true,
    description:
      'The mutation report (null with `mutation: false`): `{ mutants, killed, survived, invalid, score, survivors, sampled, duration }`.',
  })
  mutation!: MutationReportView | null;
  @ApiProperty({ description: 'Milliseconds.' }) duration!: number;
}

export class CoverageStatisticsView {
  @ApiProperty() plansMeasured!: number;
  @ApiProperty() meanRowCoverage!: number;
  @ApiProperty() meanConditionCoverage!: number;
  @ApiProperty({ description: 'Plans whose latest run hit every row.' }) fullRowCoverage!: number;
}

export class StatisticsRecordView implements StatisticsView {
  @ApiProperty() plans!: number;
  @ApiProperty() scenarios!: number;
  @ApiProperty({ description: 'Scenarios whose expectation a person confirmed.' }) confirmed!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { Passed: 40, Failed: 2, Pending: 3 },
  })
  byStatus!: Record<string, number>;
  @ApiProperty() passed!: number;
  @ApiProperty({ description: 'Scenarios Failed or Error in their latest run.' }) failed!: number;
  @ApiProperty() runs!: number;
  @ApiProperty() gateRuns!: number;
  @ApiProperty() gatesPassed!: number;
  @ApiProperty({ type: CoverageStatisticsView }) coverage!: CoverageStatisticsView;
}

export class AiProposalsRecordView implements AiProposalsView {
  @ApiProperty({ example: 'gpt-4o-mini' }) aiModelUsed!: string;
  @ApiProperty() proposed!: number;
  @ApiProperty() duplicates!: number;
  @ApiProperty({
    description:
      'Proposals too close to a scenario of the plan (`Scenarios:SimilarityThreshold`; 0 when off).',
  })
  nearDuplicates!: number;
  @ApiProperty() rejected!: number;
  @ApiProperty({ type: [ScenarioRecordView] }) added!: ScenarioRecordView[];
}

export class WorkflowPlanRecordView implements WorkflowPlanView {
  @ApiProperty({ example: ID }) id!: string;
  @ApiProperty({ example: 'loan-approval' }) workflowName!: string;
  @ApiProperty({ description: 'The workflow version the expectations were generated from.', example: 3 })
  workflowVersion!: number;
  @ApiProperty({
    enum: ['rules', 'legacy', 'code-based', 'flow-graph', 'unknown'],
    description:
      'The rule set shape (`unknown` when the plan is read back without asking the control plane).',
  })
  shape!: string;
  @ApiProperty({ example: 'loan-approval' }) seedRuleCode!: string;
  @ApiProperty({ enum: SCENARIO_SCOPES, example: 'Workflow' }) scope!: string;
  @ApiProperty({ example: 1 }) seed!: number;
  @ApiProperty({ type: String, nullable: true }) aiModelUsed!: string | null;
  @ApiProperty({ description: 'Milliseconds.' }) generationDuration!: number;
  @ApiProperty() candidates!: number;
  @ApiProperty() duplicatesRemoved!: number;
  @ApiProperty({
    description: 'Of `duplicatesRemoved`, those dropped as near duplicates (vector similarity).',
  })
  nearDuplicatesRemoved!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The embedding that judged near duplicates: `openai:<model>` (`Scenarios:EmbeddingBaseUrl`), ' +
      '`local-facts-hash-v1` (no model), or null when only the hash removes duplicates.',
  })
  embeddingModelUsed!: string | null;
  @ApiProperty() scenarioCount!: number;
  @ApiProperty() confirmedKept!: number;
  @ApiProperty({ type: [ScenarioRecordView], description: 'The first 200 scenarios by position.' })
  scenarios!: ScenarioRecordView[];
}

export class WorkflowFailureRecordView implements WorkflowFailureView {
  @ApiProperty({ example: ID }) scenarioId!: string;
  @ApiProperty() scenarioName!: string;
  @ApiProperty({ enum: SCENARIO_STATUSES }) status!: string;
  @ApiProperty(OPEN_MAP) inputFacts!: Record<string, unknown>;
  @ApiProperty({
    ...OPEN_MAP,
    description: '`{ matchedRows, outputs, errorCode }`: rules matched / nodes that succeeded.',
  })
  expected!: WorkflowFailureView['expected'];
  @ApiProperty({ ...OPEN_MAP, description: '`{ matchedRows, outputs, errors }`.' })
  actual!: WorkflowFailureView['actual'];
  @ApiProperty({
    type: 'array',
    items: OPEN_MAP,
    description: '`{ rowId, column, message }`: the rule or node that decided otherwise.',
  })
  analysis!: WorkflowFailureView['analysis'];
}

export class WorkflowRunRecordView implements WorkflowRunReport {
  @ApiProperty({ example: ID }) runId!: string;
  @ApiProperty({ example: ID }) planId!: string;
  @ApiProperty({ example: 'loan-approval' }) workflowName!: string;
  @ApiProperty({ description: 'The version run against.', example: 4 }) workflowVersion!: number;
  @ApiProperty({ description: "The version the plan's expectations come from.", example: 3 })
  planVersion!: number;
  @ApiProperty({ enum: ['Run', 'Gate'] }) kind!: 'Run' | 'Gate';
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description:
      'Gate runs: no failed or errored scenario and coverage at least minCoverage (null for plain runs).',
  })
  passed!: boolean | null;
  @ApiProperty({ type: [String] }) reasons!: string[];
  @ApiProperty({
    ...OPEN_MAP,
    nullable: true,
    description: 'Gate runs: `{ passed, minCoverage, minMutationScore, reasons }`.',
  })
  gate!: WorkflowRunReport['gate'];
  @ApiProperty({
    ...OPEN_MAP,
    nullable: true,
    description:
      'Gate runs (unless `mutation: false`): comparisons flipped, numbers moved one step, rules dropped — ' +
      '`{ mutants, killed, survived, invalid, score, survivors, sampled, duration }` (at most 500 mutants).',
  })
  mutation!: WorkflowRunReport['mutation'];
  @ApiProperty({
    ...OPEN_MAP,
    description:
      '`{ percent, rules: { total, hit, bothSides, percent, unhit, oneSided }, nodes: { total, hit, percent, unhit }, ' +
      'edges: { total, hit, percent, unhit } }`: rules (flow conditions) seen true and false, flow nodes run and ' +
      'edges taken; `percent` is the gate figure (rules; for flows the lowest of rules, nodes and edges).',
  })
  coverage!: WorkflowRunReport['coverage'];
  @ApiProperty({ type: ScenarioCountsView }) scenarios!: ScenarioCountsView;
  @ApiProperty({ type: [WorkflowFailureRecordView] }) failures!: WorkflowFailureRecordView[];
  @ApiProperty({ description: 'Milliseconds.' }) duration!: number;
}

export class GateStatusRecordView {
  @ApiProperty({ enum: ['Passed', 'Failed', 'NotRun'] }) status!: 'Passed' | 'Failed' | 'NotRun';
  @ApiProperty({ type: String, nullable: true }) runId!: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Coverage percent of that run.' }) coverage!:
    number | null;
  @ApiProperty({ type: Number, nullable: true }) minCoverage!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Failed and errored scenarios.' }) failed!:
    number | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) ranAt!: string | null;
}
