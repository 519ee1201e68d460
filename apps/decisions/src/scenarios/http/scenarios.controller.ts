import { ApiErrorFamily, ApiErrors, AppError, readPage, RequireLicenseFeature } from '@arbiter/platform';
import { SCENARIO_STATUSES, SCENARIO_TYPES } from '@arbiter/scenarios';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { AiProposalsService } from '../application/ai-proposals.service';
import { ScenarioPlansService } from '../application/scenario-plans.service';
import { ScenarioRunsService } from '../application/scenario-runs.service';
import { WorkflowScenariosService } from '../application/workflow-scenarios.service';
import { ScenarioErrorFamily } from '../errors';
import {
  AiProposalsBody,
  ExpectationBody,
  GateBody,
  GeneratePlanBody,
  RunPlanBody,
  WorkflowGateBody,
  WorkflowPlanBody,
  WorkflowRunBody,
} from './dto';
import {
  AiProposalsRecordView,
  CiRunResultView,
  PlanRecordView,
  RunRecordView,
  RunReportView,
  ScenarioRecordView,
  ScenarioResultRecordView,
  StatisticsRecordView,
  GateStatusRecordView,
  WorkflowPlanRecordView,
  WorkflowRunRecordView,
} from './views';

const PAGE = { defaultSize: 50, maxSize: 200 };
const RESULT_PAGE = { defaultSize: 100, maxSize: 1000 };

const pageQueries = (limits: { defaultSize: number; maxSize: number }) => [
  ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 } }),
  ApiQuery({
    name: 'pageSize',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: limits.maxSize, default: limits.defaultSize },
  }),
];
const apply =
  (decorators: MethodDecorator[]): MethodDecorator =>
  (target, key, descriptor) => {
    for (const d of decorators) d(target, key, descriptor);
  };
const id = (name: string, what: string) =>
  ApiParam({ name, description: `${what} id (a UUID).`, schema: { type: 'string' } });

/** Generated test scenarios of decision tables (spec 2 item 9, "Scenario records"). */
@ApiTags('scenarios')
@ApiErrorFamily(ScenarioErrorFamily)
@Controller('api/v1/scenarios')
export class ScenariosController {
  constructor(
    @Inject(ScenarioPlansService) private readonly plans: ScenarioPlansService,
    @Inject(ScenarioRunsService) private readonly runs: ScenarioRunsService,
    @Inject(AiProposalsService) private readonly ai: AiProposalsService,
    @Inject(WorkflowScenariosService) private readonly workflows: WorkflowScenariosService,
  ) {}

  @Post('workflows/:workflow/plan')
  @ApiOperation({
    summary: 'Generate the scenario plan of a control-plane workflow (rule set or flow)',
    description:
      'Scope `Workflow` (pairwise combinations `CrossRule`). The rule set version is read from the control plane ' +
      "over the bus in the caller's tenant. Per condition (rule condition, flow condition, JavaScript condition): " +
      'true and false, the MC/DC pairs, every boundary (an input compared with another input is solved from that ' +
      "input's value), null and missing inputs; flow nodes are reached through the conditions on a path from " +
      '`start`, `on-error` edges through inputs a condition cannot read. Each expectation is what the version ' +
      'does (rules matched or nodes that succeeded, output facts, first error code). Generating again keeps ' +
      'scenarios a person confirmed.',
  })
  @ApiParam({ name: 'workflow', schema: { type: 'string' } })
  @ApiCreatedResponse({ type: WorkflowPlanRecordView })
  @ApiErrors(400, 404, 422, 502, 503)
  generateWorkflowPlan(@Param('workflow') workflow: string, @Body() body: WorkflowPlanBody) {
    return this.workflows.generate(workflow, { version: body.version, seed: body.seed });
  }

  @Get('workflows/:workflow/plan')
  @ApiOperation({ summary: "A workflow's plan with its first 200 scenarios" })
  @ApiParam({ name: 'workflow', schema: { type: 'string' } })
  @ApiOkResponse({ type: WorkflowPlanRecordView })
  @ApiErrors(400, 404)
  getWorkflowPlan(@Param('workflow') workflow: string) {
    return this.workflows.plan(workflow);
  }

  @Post('workflows/:workflow/runs')
  @ApiOperation({
    summary: "Run a workflow's plan against a version",
    description:
      'Every scenario runs through the rule set engine the control plane executes with (connectors skipped); ' +
      'results and coverage (rules both ways, flow nodes and edges) are recorded.',
  })
  @ApiParam({ name: 'workflow', schema: { type: 'string' } })
  @ApiCreatedResponse({ type: WorkflowRunRecordView })
  @ApiErrors(400, 404, 422, 503)
  runWorkflow(@Param('workflow') workflow: string, @Body() body: WorkflowRunBody) {
    return this.workflows.run(workflow, body.version);
  }

  @Post('workflows/:workflow/gate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run the CI gate of a workflow version',
    description:
      'The plan (generated from the candidate when there is none) runs against the candidate; the gate passes ' +
      'when no scenario fails or errs and the coverage reaches `minCoverage`. A failing gate is still a 200. With ' +
      '`RuleControlPlane:RequireScenarioGate` the control plane approves and activates only a version whose ' +
      'latest gate passed.',
  })
  @ApiParam({ name: 'workflow', schema: { type: 'string' } })
  @ApiOkResponse({ type: WorkflowRunRecordView })
  @ApiErrors(400, 404, 422, 502, 503)
  gateWorkflow(@Param('workflow') workflow: string, @Body() body: WorkflowGateBody) {
    return this.workflows.gate(workflow, body);
  }

  @Get('workflows/:workflow/versions/:version/gate')
  @ApiOperation({
    summary: "A workflow version's latest gate verdict",
    description: 'What an approver checks, and what the control plane asks when it requires a passing gate.',
  })
  @ApiParam({ name: 'workflow', schema: { type: 'string' } })
  @ApiParam({ name: 'version', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: GateStatusRecordView })
  @ApiErrors(400)
  workflowGateStatus(@Param('workflow') workflow: string, @Param('version') version: string) {
    return this.workflows.gateStatus(workflow, /^\d{1,9}$/.test(version) ? Number(version) : NaN);
  }

  @Post('plans')
  @ApiOperation({
    summary: 'Generate the scenario plan of a table',
    description:
      'Deterministic (no AI): boundary values and equivalence classes of every condition, MC/DC pairs, missing and ' +
      'null inputs, pairwise cross-row combinations; duplicates removed by the canonical hash of the input facts, ' +
      'and near-duplicate combinations by vector similarity when `Scenarios:SimilarityThreshold` is set (502 ' +
      '`EMBEDDING_MODEL_FAILED` when the configured embeddings endpoint fails). ' +
      'Each expectation is what the table version does. Generating again replaces every scenario except those a ' +
      'person confirmed.',
  })
  @ApiCreatedResponse({ type: PlanRecordView })
  @ApiErrors(404, 422, 502)
  generate(@Body() body: GeneratePlanBody) {
    return this.plans.generate(body);
  }

  @Get('plans')
  @ApiOperation({ summary: "List the tenant's plans (newest first; `scenarios` left empty)" })
  @ApiQuery({
    name: 'tableId',
    required: false,
    schema: { type: 'string' },
    description: 'Only the plan of this table.',
  })
  @apply(pageQueries(PAGE))
  @ApiOkResponse({ type: [PlanRecordView] })
  listPlans(@Query() query: Record<string, unknown>) {
    const tableId = typeof query.tableId === 'string' && query.tableId ? query.tableId : undefined;
    return this.plans.plans(readPage(query, PAGE), tableId);
  }

  @Get('plans/:planId')
  @ApiOperation({ summary: 'A plan with its first 200 scenarios' })
  @id('planId', 'Plan')
  @ApiOkResponse({ type: PlanRecordView })
  @ApiErrors(404)
  getPlan(@Param('planId') planId: string) {
    return this.plans.plan(planId);
  }

  @Get('plans/:planId/scenarios')
  @ApiOperation({ summary: "A plan's scenarios by position" })
  @id('planId', 'Plan')
  @ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: [...SCENARIO_STATUSES] } })
  @ApiQuery({ name: 'type', required: false, schema: { type: 'string', enum: [...SCENARIO_TYPES] } })
  @apply(pageQueries(PAGE))
  @ApiOkResponse({ type: [ScenarioRecordView] })
  @ApiErrors(404)
  listScenarios(@Param('planId') planId: string, @Query() query: Record<string, unknown>) {
    const pick = (v: unknown, allowed: readonly string[], name: string) => {
      if (v === undefined || v === '') return undefined;
      if (typeof v !== 'string' || !allowed.includes(v))
        throw AppError.validation([{ field: name, message: `${name} must be one of ${allowed.join(', ')}` }]);
      return v;
    };
    return this.plans.scenarios(planId, readPage(query, PAGE), {
      status: pick(query.status, SCENARIO_STATUSES, 'status'),
      type: pick(query.type, SCENARIO_TYPES, 'type'),
    });
  }

  @Post('plans/:planId/runs')
  @ApiOperation({
    summary: 'Run a plan against a table version',
    description:
      'Every scenario runs through the compiled table (the engine of the evaluate route); results, coverage (rows ' +
      'hit, both sides of every condition) and the failure analysis (which row, which condition, which input) are recorded.',
  })
  @id('planId', 'Plan')
  @ApiCreatedResponse({ type: RunReportView })
  @ApiErrors(404, 422)
  runPlan(@Param('planId') planId: string, @Body() body: RunPlanBody) {
    return this.runs.runPlan(planId, body.version);
  }

  @Post('plans/:planId/ai-proposals')
  @HttpCode(201)
  @RequireLicenseFeature('scenarios.ai')
  @ApiOperation({
    summary: 'Ask the configured AI model for further scenarios',
    description:
      'An OpenAI-compatible chat endpoint (`Scenarios:Ai:Endpoint`, `Scenarios:Ai:Model`) proposes scenarios from the ' +
      "text of the plan's table or workflow version; they go through the same dedup (hash, then vector similarity " +
      'when `Scenarios:SimilarityThreshold` is set) and get their expectation from the same engine. Without a ' +
      'configured model: 503 `AI_MODEL_NOT_CONFIGURED` (nothing is made up); a failing model: 502 `AI_MODEL_FAILED`. ' +
      'With `License:EnforceOnMiddleware` the license must grant `scenarios.ai` (Enterprise `*` does): else 403 ' +
      '`LICENSE_FEATURE_REQUIRED`.',
  })
  @id('planId', 'Plan')
  @ApiCreatedResponse({ type: AiProposalsRecordView })
  @ApiErrors(403, 404, 502, 503)
  propose(@Param('planId') planId: string, @Body() body: AiProposalsBody) {
    return this.ai.propose(planId, body.count ?? 20);
  }

  @Get('runs/:runId')
  @ApiOperation({ summary: 'A run (plain or gate) with its coverage' })
  @id('runId', 'Run')
  @ApiOkResponse({ type: RunRecordView })
  @ApiErrors(404)
  getRun(@Param('runId') runId: string) {
    return this.runs.run(runId);
  }

  @Get('runs/:runId/results')
  @ApiOperation({ summary: "A run's scenario results by position" })
  @id('runId', 'Run')
  @apply(pageQueries(RESULT_PAGE))
  @ApiOkResponse({ type: [ScenarioResultRecordView] })
  @ApiErrors(404)
  results(@Param('runId') runId: string, @Query() query: Record<string, unknown>) {
    return this.runs.results(runId, readPage(query, RESULT_PAGE));
  }

  @Get('statistics')
  @ApiOperation({ summary: "The tenant's pass, fail and coverage counts" })
  @ApiOkResponse({ type: StatisticsRecordView })
  statistics() {
    return this.runs.statistics();
  }

  @Post('gate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run the CI gate of a table',
    description:
      "The table's plan (generated from the candidate version when the table has none) runs against the candidate; " +
      'the gate passes when no scenario fails or errs and the row coverage reaches `minCoverage` (and the mutation ' +
      'score `minMutationScore` when given). A failing gate is still a 200: `passed` says it.',
  })
  @ApiOkResponse({ type: CiRunResultView })
  @ApiErrors(404, 422, 502)
  gate(@Body() body: GateBody) {
    return this.runs.gate(body);
  }

  @Get(':scenarioId')
  @ApiOperation({ summary: 'A scenario with its latest result' })
  @id('scenarioId', 'Scenario')
  @ApiOkResponse({ type: ScenarioRecordView })
  @ApiErrors(404)
  getScenario(@Param('scenarioId') scenarioId: string) {
    return this.plans.scenario(scenarioId);
  }

  @Put(':scenarioId/expectation')
  @ApiOperation({
    summary: "Edit a scenario's expectation",
    description:
      'The scenario becomes confirmed by a person (`confirmed`, `confirmedBy`): regeneration never replaces it.',
  })
  @id('scenarioId', 'Scenario')
  @ApiOkResponse({ type: ScenarioRecordView })
  @ApiErrors(404)
  editExpectation(@Param('scenarioId') scenarioId: string, @Body() body: ExpectationBody) {
    return this.plans.editExpectation(scenarioId, {
      matchedRows: body.matchedRows,
      outputs: body.outputs ?? null,
      errorCode: body.errorCode ?? null,
      description: body.description,
    });
  }
}
