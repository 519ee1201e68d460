import {
  RequestSubjects,
  type RuleSetVersionReply,
  type RuleSetVersionRequest,
  type ScenarioGateStatusReply,
  type ScenarioGateStatusRequest,
} from '@arbiter/contracts';
import {
  AppError,
  BusRequestError,
  EventBus,
  RequestContext,
  UnitOfWork,
  type EventSubscription,
} from '@arbiter/platform';
import type {
  CompiledRuleSet,
  DecisionTableDefinition,
  RuleSetCompileContext,
  RuleSetShapeName,
} from '@arbiter/rule-engine';
import {
  buildWorkflowModel,
  generateWorkflowScenarios,
  runWorkflowScenarios,
  workflowMutationRun,
  type MutationReport,
  type WorkflowCoverage,
  type WorkflowModel,
} from '@arbiter/scenarios';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { DecisionTableAuthoringService } from '../../decision-tables';
import { ScenarioErrors as E } from '../errors';
import { ScenarioPlanEntity, ScenarioResultEntity, ScenarioRunEntity } from '../persistence/entities';
import { ScenarioRepository } from '../persistence/scenario.repository';
import { storeGeneratedPlan } from './plan-scenarios';
import { ScenarioSimilarity } from './scenario-similarity';
import { ScenariosSettings } from '../../settings';
import { FailureView, ScenarioView, failureViews, scenarioView } from './scenario-views';

const WORKFLOW_NAME = /^[A-Za-z0-9._-]{1,128}$/;
const FIRST_SCENARIOS = 200;

export interface WorkflowPlanView {
  id: string;
  workflowName: string;
  /** the version the expectations were generated from */
  workflowVersion: number;
  shape: string;
  seedRuleCode: string;
  scope: string;
  seed: number;
  aiModelUsed: string | null;
  generationDuration: number;
  candidates: number;
  duplicatesRemoved: number;
  nearDuplicatesRemoved: number;
  embeddingModelUsed: string | null;
  scenarioCount: number;
  confirmedKept: number;
  scenarios: ScenarioView[];
}

/** A failed scenario of a workflow run. */
export type WorkflowFailureView = FailureView<{ rowId: string; column: string | null; message: string }>;

export interface WorkflowRunReport {
  runId: string;
  planId: string;
  workflowName: string;
  /** the version run against */
  workflowVersion: number;
  /** the version the plan's expectations were generated from */
  planVersion: number;
  kind: 'Run' | 'Gate';
  passed: boolean | null;
  reasons: string[];
  gate: { passed: boolean; minCoverage: number; minMutationScore: number | null; reasons: string[] } | null;
  coverage: WorkflowCoverage;
  /** gate runs: mutants of the version's conditions and rules, and how many the scenarios notice */
  mutation: MutationReport | null;
  scenarios: { total: number; passed: number; failed: number; errored: number };
  failures: WorkflowFailureView[];
  duration: number;
}

export interface WorkflowGateRequest {
  version?: number;
  minCoverage?: number;
  seed?: number;
  /** run the mutation analysis (default true) */
  mutation?: boolean;
  /** minimum mutation score in percent (default: reported, not gated) */
  minMutationScore?: number;
}

/** mutants one workflow gate tries at most (each is a compile and a run of the plan) */
const MAX_WORKFLOW_MUTANTS = 500;
/** scenario evaluations one workflow mutation run may take (mutants × scenarios; a sample past it) */
const MUTATION_EVALUATIONS = 200_000;

function assertWorkflowName(name: string): void {
  if (!WORKFLOW_NAME.test(name))
    throw AppError.badRequest(
      E.InvalidWorkflowName,
      'A workflow name is 1–128 letters, digits, dots, underscores or dashes',
    );
}

/**
 * `Workflow` scope: scenario plans of control-plane rule sets and flows. The rule set is read from the
 * control plane over the bus (`rpc.control-plane.ruleset-version`, in the caller's tenant), never from its
 * database; stored decision tables its flow nodes name are this service's own; sub flows are read the same
 * way. Scenarios run through `compileRuleSet` (the engine the control plane executes with), connectors
 * skipped. The latest gate verdict of each version is served back on `rpc.decisions.scenario-gate-status`,
 * which the control plane asks before approval and activation when `RuleControlPlane:RequireScenarioGate` is on.
 */
@Injectable()
export class WorkflowScenariosService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WorkflowScenarios');
  private subscription: EventSubscription | null = null;

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ScenarioRepository) private readonly repo: ScenarioRepository,
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
    @Inject(ScenariosSettings) private readonly settings: ScenariosSettings,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(ScenarioSimilarity) private readonly similarity: ScenarioSimilarity,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      this.subscription = await this.bus.respond<ScenarioGateStatusRequest>(
        RequestSubjects.ScenarioGateStatus,
        (event) => this.gateStatus(String(event.data?.workflowName ?? ''), Number(event.data?.version)),
      );
    } catch (error) {
      this.logger.warn({ msg: 'scenario gate verdicts are not served over the bus', err: String(error) });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.unsubscribe();
  }

  /* ------------------------------------------------------------ reading rule sets */

  private async fetch(workflowName: string, version?: number): Promise<RuleSetVersionReply> {
    assertWorkflowName(workflowName);
    try {
      return await this.bus.request<RuleSetVersionReply>(
        RequestSubjects.RuleSetVersion,
        { workflowName, ...(version !== undefined ? { version } : {}) } satisfies RuleSetVersionRequest,
        { timeoutMs: this.settings.controlPlaneTimeoutMs },
      );
    } catch (error) {
      if (error instanceof BusRequestError && error.reason === 'REMOTE_ERROR' && error.remote?.status === 404)
        throw AppError.notFound(E.WorkflowNotFound, error.message.replace(/^[^:]*: /, ''));
      if (error instanceof BusRequestError && error.reason === 'REMOTE_ERROR' && error.remote?.status === 400)
        throw AppError.badRequest(E.InvalidVersion, error.message.replace(/^[^:]*: /, ''));
      throw new AppError(
        503,
        E.ControlPlaneUnavailable,
        `The control plane did not answer for workflow '${workflowName}' (${(error as Error).message})`,
      );
    }
  }

  private async resolveTable(ref: {
    id?: string;
    name?: string;
    version?: number;
  }): Promise<DecisionTableDefinition> {
    const t = ref.id
      ? await this.tables.get(ref.id, ref.version)
      : await this.tables.getByName(String(ref.name), ref.version);
    const { name, hitPolicy, inputColumns, outputColumns, rows } = t;
    return { name, hitPolicy, inputColumns, outputColumns, rows };
  }

  /** The engine's ports here: stored tables are this service's, sub flows come from the control plane. */
  private context(reply: RuleSetVersionReply): RuleSetCompileContext {
    return {
      workflowName: reply.workflowName,
      resolveDecisionTable: (ref) => this.resolveTable(ref),
      resolveSubFlow: async (name, pinned): Promise<CompiledRuleSet> =>
        (await this.model(await this.fetch(name, pinned))).compiled,
    };
  }

  private async model(reply: RuleSetVersionReply): Promise<WorkflowModel> {
    try {
      return await buildWorkflowModel(reply.ruleSet, this.context(reply), reply.shape as RuleSetShapeName);
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw AppError.unprocessable(
        E.InvalidWorkflow,
        `Version ${reply.version} of '${reply.workflowName}' does not compile here: ${(error as Error).message}`,
      );
    }
  }

  /* ------------------------------------------------------------ plans */

  async generate(
    workflowName: string,
    request: { version?: number; seed?: number },
  ): Promise<WorkflowPlanView> {
    const reply = await this.fetch(workflowName, request.version);
    const model = await this.model(reply);
    const generated = await generateWorkflowScenarios(model, {
      seedRuleCode: reply.workflowName,
      seed: request.seed ?? 1,
      maxScenarios: this.settings.maxScenariosPerPlan,
    });
    // near duplicates: the same pass as a table's (the configured embeddings, else the local one)
    const thinned = await this.similarity.thinGenerated(generated.scenarios);
    const actor = RequestContext.actor();
    return this.uow.run(async (m) => {
      const now = new Date();
      const existing = await this.repo.planOfWorkflow(m, reply.workflowName);
      const plan: ScenarioPlanEntity = Object.assign(existing ?? new ScenarioPlanEntity(), {
        id: existing?.id ?? randomUUID(),
        tenantId: RequestContext.tenantId(),
        tableId: null,
        tableVersion: null,
        workflowName: reply.workflowName,
        workflowVersion: reply.version,
        seedRuleCode: generated.seedRuleCode,
        scope: generated.scope,
        seed: generated.seed,
        aiModelUsed: null,
        generationDuration: generated.generationDuration,
        candidates: generated.candidates,
        duplicatesRemoved: generated.duplicatesRemoved + thinned.removed,
        nearDuplicatesRemoved: thinned.removed,
        embeddingModelUsed: this.similarity.embeddingName,
        createdBy: existing?.createdBy ?? actor,
        createdAt: existing?.createdAt ?? now,
        modifiedAt: now,
      });
      const kept = await storeGeneratedPlan(
        this.repo,
        m,
        plan,
        !!existing,
        { ...generated, scenarios: thinned.scenarios },
        now,
      );
      return this.view(m, plan, reply.shape, kept);
    });
  }

  async plan(workflowName: string): Promise<WorkflowPlanView> {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      const plan = await this.requirePlan(m, workflowName);
      const confirmed = await this.repo.countConfirmed(m, plan.id);
      return this.view(m, plan, null, confirmed);
    });
  }

  private async view(
    m: EntityManager,
    plan: ScenarioPlanEntity,
    shape: string | null,
    confirmedKept: number,
  ): Promise<WorkflowPlanView> {
    const count = await this.repo.countScenarios(m, plan.id);
    const first = await this.repo.scenarioPage(m, plan.id, 0, FIRST_SCENARIOS, {});
    return {
      id: plan.id,
      workflowName: plan.workflowName!,
      workflowVersion: plan.workflowVersion!,
      shape: shape ?? 'unknown',
      seedRuleCode: plan.seedRuleCode,
      scope: plan.scope,
      seed: plan.seed,
      aiModelUsed: plan.aiModelUsed,
      generationDuration: plan.generationDuration,
      candidates: plan.candidates,
      duplicatesRemoved: plan.duplicatesRemoved,
      nearDuplicatesRemoved: plan.nearDuplicatesRemoved ?? 0,
      embeddingModelUsed: plan.embeddingModelUsed ?? null,
      scenarioCount: count,
      confirmedKept,
      scenarios: first.map((s) => scenarioView(s)),
    };
  }

  private async requirePlan(m: EntityManager, workflowName: string): Promise<ScenarioPlanEntity> {
    const plan = await this.repo.planOfWorkflow(m, workflowName);
    if (!plan)
      throw AppError.notFound(
        E.PlanNotFound,
        `Workflow '${workflowName}' has no scenario plan; generate one first`,
      );
    return plan;
  }

  /** The compiled workflow version a plan's expectations come from, and its document. */
  async versionOfPlan(
    plan: ScenarioPlanEntity,
  ): Promise<{ model: WorkflowModel; document: Record<string, unknown> }> {
    const reply = await this.fetch(plan.workflowName!, plan.workflowVersion!);
    return { model: await this.model(reply), document: reply.ruleSet };
  }

  /** The rule names / node ids of the plan's workflow version (an edited expectation may name only these). */
  async itemsOf(plan: ScenarioPlanEntity): Promise<string[]> {
    const model = await this.model(await this.fetch(plan.workflowName!, plan.workflowVersion!));
    return model.items;
  }

  /* ------------------------------------------------------------ runs and the gate */

  /** Runs the plan against `version` (default: the active version, else the plan's). */
  async runPlan(
    plan: ScenarioPlanEntity,
    version: number | undefined,
    kind: 'Run' | 'Gate',
    gateRequest: WorkflowGateRequest = {},
  ) {
    const minCoverage = gateRequest.minCoverage ?? 90;
    const minMutationScore = gateRequest.minMutationScore ?? null;
    const reply = await this.fetch(plan.workflowName!, version ?? plan.workflowVersion!);
    const model = await this.model(reply);
    const scenarios = await this.uow.run((m) => this.repo.scenarios(m, plan.id));
    const started = performance.now();
    const report = await runWorkflowScenarios(
      model,
      scenarios.map((s) => ({ id: s.id, inputFacts: s.inputFacts, expectedBehavior: s.expectedBehavior })),
    );
    let mutation: MutationReport | null = null;
    if (kind === 'Gate' && gateRequest.mutation !== false)
      mutation = await workflowMutationRun(
        reply.ruleSet,
        scenarios.map((s) => ({ inputFacts: s.inputFacts, expectedBehavior: s.expectedBehavior })),
        {
          context: this.context(reply),
          shape: reply.shape as RuleSetShapeName,
          // each mutant runs the whole plan: the product of both stays bounded
          maxMutants: Math.max(
            10,
            Math.min(
              this.settings.maxMutants,
              MAX_WORKFLOW_MUTANTS,
              Math.floor(MUTATION_EVALUATIONS / Math.max(1, scenarios.length)),
            ),
          ),
          seed: plan.seed,
        },
      );
    const duration = Math.round((performance.now() - started) * 1000) / 1000;
    const failures = failureViews(report.results, scenarios);
    let gate: WorkflowRunReport['gate'] = null;
    if (kind === 'Gate') {
      const reasons: string[] = [];
      if (report.failed) reasons.push(`${report.failed} scenario(s) failed`);
      if (report.errored) reasons.push(`${report.errored} scenario(s) ended in an error`);
      if (report.coverage.percent < minCoverage)
        reasons.push(`coverage ${report.coverage.percent} % is below ${minCoverage} %`);
      if (minMutationScore !== null && mutation && mutation.score < minMutationScore)
        reasons.push(`mutation score ${mutation.score} % is below ${minMutationScore} %`);
      gate = { passed: reasons.length === 0, minCoverage, minMutationScore, reasons };
    }
    const run: ScenarioRunEntity = {
      id: randomUUID(),
      tenantId: RequestContext.tenantId(),
      planId: plan.id,
      tableVersion: reply.version,
      kind,
      passed: report.passed,
      failed: report.failed,
      errored: report.errored,
      coverage: report.coverage as unknown as Record<string, unknown>,
      mutation: mutation as unknown as Record<string, unknown> | null,
      gate,
      duration,
      createdBy: RequestContext.actor(),
      createdAt: new Date(),
    };
    const results: ScenarioResultEntity[] = report.results.map((r, i) => ({
      runId: run.id,
      scenarioId: scenarios[i].id,
      tenantId: run.tenantId,
      position: scenarios[i].position,
      status: r.status,
      isSuccess: r.isSuccess,
      matchesExpectation: r.matchesExpectation,
      outputFacts: r.outputFacts,
      matchedRows: r.matchedRows,
      errors: r.errors,
      duration: r.duration,
      analysis: r.analysis.map((a) => ({ ...a })),
    }));
    await this.uow.run(async (m) => {
      await this.repo.insertRun(m, run, results);
      await this.repo.setStatuses(
        m,
        results.map((r) => ({ id: r.scenarioId, status: r.status })),
      );
    });
    const out: WorkflowRunReport = {
      runId: run.id,
      planId: plan.id,
      workflowName: reply.workflowName,
      workflowVersion: reply.version,
      planVersion: plan.workflowVersion!,
      kind,
      passed: gate ? gate.passed : null,
      reasons: gate?.reasons ?? [],
      gate,
      coverage: report.coverage,
      mutation,
      scenarios: {
        total: report.results.length,
        passed: report.passed,
        failed: report.failed,
        errored: report.errored,
      },
      failures,
      duration,
    };
    return out;
  }

  async run(workflowName: string, version?: number): Promise<WorkflowRunReport> {
    assertWorkflowName(workflowName);
    const plan = await this.uow.run((m) => this.requirePlan(m, workflowName));
    return this.runPlan(plan, version, 'Run');
  }

  /** The CI gate of a workflow version: its plan (generated from the candidate when there is none) run against it. */
  async gate(workflowName: string, request: WorkflowGateRequest): Promise<WorkflowRunReport> {
    assertWorkflowName(workflowName);
    let plan = await this.uow.run((m) => this.repo.planOfWorkflow(m, workflowName));
    if (!plan) {
      await this.generate(workflowName, { version: request.version, seed: request.seed });
      plan = await this.uow.run((m) => this.requirePlan(m, workflowName));
    }
    return this.runPlan(plan, request.version, 'Gate', request);
  }

  /** The latest gate verdict of one workflow version (what an approver sees; what the control plane asks). */
  async gateStatus(workflowName: string, version: number): Promise<ScenarioGateStatusReply> {
    assertWorkflowName(workflowName);
    if (!Number.isInteger(version) || version < 1)
      throw AppError.badRequest(E.InvalidVersion, 'version must be a positive integer');
    return this.uow.run(async (m) => {
      const plan = await this.repo.planOfWorkflow(m, workflowName);
      const run = plan ? await this.repo.latestGate(m, plan.id, version) : null;
      if (!run)
        return {
          status: 'NotRun',
          runId: null,
          coverage: null,
          minCoverage: null,
          failed: null,
          ranAt: null,
        };
      const gate = run.gate as { passed?: boolean; minCoverage?: number } | null;
      return {
        status: gate?.passed ? 'Passed' : 'Failed',
        runId: run.id,
        coverage: Number((run.coverage as { percent?: number }).percent ?? 0),
        minCoverage: gate?.minCoverage ?? null,
        failed: run.failed + run.errored,
        ranAt: run.createdAt.toISOString(),
      };
    });
  }
}
