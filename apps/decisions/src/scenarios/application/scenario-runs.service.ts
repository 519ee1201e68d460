import { AppError, RequestContext, UnitOfWork, type PageRequest } from '@arbiter/platform';
import { type MutationReport, type TableCoverage } from '@arbiter/scenarios';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DecisionTableAuthoringService } from '../../decision-tables';
import { ScenarioErrors as E } from '../errors';
import { ScenarioPlanEntity, ScenarioResultEntity, ScenarioRunEntity } from '../persistence/entities';
import { ScenarioRepository, TenantStatistics } from '../persistence/scenario.repository';
import { ScenariosSettings } from '../../settings';
import { ScenarioPlansService } from './scenario-plans.service';
import { mapSliced } from './map-sliced';
import { ScenarioWorkers } from './scenario-workers';
import {
  FailureView,
  RunView,
  ScenarioResultView,
  failureViews,
  resultView,
  runView,
} from './scenario-views';
export type { FailureView } from './scenario-views';
import { loadTable, requireUuid } from './stored-table';

export interface GateRequest {
  tableId: string;
  /** the candidate version (default: the latest) */
  version?: number;
  /** minimum row coverage in percent (default 90) */
  minCoverage?: number;
  /** run the mutation analysis (default true) */
  mutation?: boolean;
  /** minimum mutation score in percent (default: not gated, reported only) */
  minMutationScore?: number;
  /** seed when the table has no plan yet and one is generated */
  seed?: number;
}

/** The CI run result (spec 2): the gate's verdict with the coverage thresholds. */
export interface CiRunResult {
  runId: string;
  planId: string;
  tableId: string;
  tableName: string;
  tableVersion: number;
  /** the version the plan's expectations were generated from */
  planVersion: number;
  passed: boolean;
  reasons: string[];
  gate: { passed: boolean; minCoverage: number; minMutationScore: number | null; reasons: string[] };
  coverage: TableCoverage;
  scenarios: { total: number; passed: number; failed: number; errored: number };
  failures: FailureView[];
  mutation: MutationReport | null;
  /** milliseconds */
  duration: number;
}

export interface RunReport extends RunView {
  tableId: string;
  failures: FailureView[];
}

export interface StatisticsView extends TenantStatistics {
  passed: number;
  failed: number;
  /** latest run of each plan: mean row and condition coverage (percent), plans at 100 % rows */
  coverage: {
    plansMeasured: number;
    meanRowCoverage: number;
    meanConditionCoverage: number;
    fullRowCoverage: number;
  };
}

/**
 * Runs of scenario plans against a table version through the engine the runtime uses (on a scenario worker
 * thread), with results, coverage and failure analysis recorded; the CI gate (run + coverage threshold +
 * mutation score); the tenant's statistics.
 */
@Injectable()
export class ScenarioRunsService {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ScenarioRepository) private readonly repo: ScenarioRepository,
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
    @Inject(ScenarioPlansService) private readonly plans: ScenarioPlansService,
    @Inject(ScenariosSettings) private readonly settings: ScenariosSettings,
    @Inject(ScenarioWorkers) private readonly workers: ScenarioWorkers,
  ) {}

  private async execute(
    plan: ScenarioPlanEntity,
    version: number | undefined,
    kind: 'Run' | 'Gate',
    gate?: GateRequest,
  ) {
    const { table, definition } = await loadTable(this.tables, plan.tableId!, version);
    const scenarios = await this.uow.run((m) => this.repo.scenarios(m, plan.id));
    const started = performance.now();
    // the run and the mutation run on a worker thread: the service's loop only reads and writes the database
    const { report, mutation } = await this.workers.runPlan(
      definition,
      await mapSliced(scenarios, (s) => ({
        id: s.id,
        inputFacts: s.inputFacts,
        expectedBehavior: s.expectedBehavior,
      })),
      kind === 'Gate' && gate?.mutation !== false
        ? { maxMutants: this.settings.maxMutants, seed: plan.seed }
        : undefined,
    );
    const duration = Math.round((performance.now() - started) * 1000) / 1000;
    const failures = failureViews(report.results, scenarios);
    let gateResult: CiRunResult['gate'] | null = null;
    if (kind === 'Gate') {
      const minCoverage = gate?.minCoverage ?? 90;
      const minMutationScore = gate?.minMutationScore ?? null;
      const reasons: string[] = [];
      if (report.failed) reasons.push(`${report.failed} scenario(s) failed`);
      if (report.errored) reasons.push(`${report.errored} scenario(s) ended in an error`);
      if (report.coverage.rows.percent < minCoverage)
        reasons.push(`row coverage ${report.coverage.rows.percent} % is below ${minCoverage} %`);
      if (minMutationScore !== null && mutation && mutation.score < minMutationScore)
        reasons.push(`mutation score ${mutation.score} % is below ${minMutationScore} %`);
      gateResult = { passed: reasons.length === 0, minCoverage, minMutationScore, reasons };
    }
    const run: ScenarioRunEntity = {
      id: randomUUID(),
      tenantId: RequestContext.tenantId(),
      planId: plan.id,
      tableVersion: table.version,
      kind,
      passed: report.passed,
      failed: report.failed,
      errored: report.errored,
      coverage: report.coverage as unknown as Record<string, unknown>,
      mutation: mutation as unknown as Record<string, unknown> | null,
      gate: gateResult,
      duration,
      createdBy: RequestContext.actor(),
      createdAt: new Date(),
    };
    const results = await mapSliced(report.results, (r, i): ScenarioResultEntity => ({
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
      analysis: r.analysis,
    }));
    await this.uow.run(async (m) => {
      await this.repo.insertRun(m, run, results);
      await this.repo.setStatuses(
        m,
        await mapSliced(results, (r) => ({ id: r.scenarioId, status: r.status })),
      );
    });
    return { table, run, report, failures, mutation, gate: gateResult };
  }

  async runPlan(planId: string, version?: number): Promise<RunReport> {
    requireUuid(planId, E.PlanNotFound, 'Scenario plan');
    const plan = await this.requirePlan(planId);
    if (!plan.tableId)
      throw AppError.unprocessable(
        E.NotATablePlan,
        `Plan '${planId}' is the plan of workflow '${plan.workflowName}': run it with POST /api/v1/scenarios/workflows/${plan.workflowName}/runs`,
      );
    const { table, run, failures } = await this.execute(plan, version, 'Run');
    return { ...runView(run), tableId: table.id, failures };
  }

  /** The CI gate: the table's plan (generated from the candidate when it has none) run against the candidate. */
  async gate(request: GateRequest): Promise<CiRunResult> {
    let plan = await this.uow.run((m) => this.repo.planOfTable(m, request.tableId));
    if (!plan) {
      const generated = await this.plans.generate({
        tableId: request.tableId,
        version: request.version,
        seed: request.seed,
      });
      plan = await this.requirePlan(generated.id);
    }
    const { table, run, report, failures, mutation, gate } = await this.execute(
      plan,
      request.version,
      'Gate',
      request,
    );
    return {
      runId: run.id,
      planId: plan.id,
      tableId: table.id,
      tableName: table.name,
      tableVersion: table.version,
      planVersion: plan.tableVersion!,
      passed: gate!.passed,
      reasons: gate!.reasons,
      gate: gate!,
      coverage: report.coverage,
      scenarios: {
        total: report.results.length,
        passed: report.passed,
        failed: report.failed,
        errored: report.errored,
      },
      failures,
      mutation,
      duration: run.duration,
    };
  }

  async run(runId: string): Promise<RunView> {
    requireUuid(runId, E.RunNotFound, 'Scenario run');
    return this.uow.run(async (m) => {
      const run = await this.repo.run(m, runId);
      if (!run) throw AppError.notFound(E.RunNotFound, `Scenario run '${runId}' does not exist`);
      return runView(run);
    });
  }

  async results(runId: string, page: PageRequest): Promise<ScenarioResultView[]> {
    requireUuid(runId, E.RunNotFound, 'Scenario run');
    return this.uow.run(async (m) => {
      if (!(await this.repo.run(m, runId)))
        throw AppError.notFound(E.RunNotFound, `Scenario run '${runId}' does not exist`);
      return (await this.repo.results(m, runId, page.offset, page.pageSize)).map(resultView);
    });
  }

  async statistics(): Promise<StatisticsView> {
    return this.uow.run(async (m) => {
      const stats = await this.repo.statistics(m);
      const latest = await this.repo.latestCoverages(m);
      const mean = (xs: number[]) =>
        xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : 0;
      return {
        ...stats,
        passed: stats.byStatus.Passed ?? 0,
        failed: (stats.byStatus.Failed ?? 0) + (stats.byStatus.Error ?? 0),
        coverage: {
          plansMeasured: latest.length,
          meanRowCoverage: mean(latest.map((c) => c.rows)),
          meanConditionCoverage: mean(latest.map((c) => c.conditions)),
          fullRowCoverage: latest.filter((c) => c.rows >= 100).length,
        },
      };
    });
  }

  private async requirePlan(planId: string): Promise<ScenarioPlanEntity> {
    const plan = await this.uow.run((m) => this.repo.plan(m, planId));
    if (!plan) throw AppError.notFound(E.PlanNotFound, `Scenario plan '${planId}' does not exist`);
    return plan;
  }
}
