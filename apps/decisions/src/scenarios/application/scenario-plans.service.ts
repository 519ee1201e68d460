import { AppError, RequestContext, UnitOfWork, type PageRequest } from '@arbiter/platform';
import { type ExpectedBehavior } from '@arbiter/scenarios';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { DecisionTableAuthoringService } from '../../decision-tables';
import { ScenarioErrors as E } from '../errors';
import { ScenarioPlanEntity } from '../persistence/entities';
import { ScenarioRepository } from '../persistence/scenario.repository';
import { storeGeneratedPlan } from './plan-scenarios';
import { ScenarioSimilarity } from './scenario-similarity';
import { ScenarioWorkers } from './scenario-workers';
import { ScenariosSettings } from '../../settings';
import { PlanView, ScenarioView, planView, scenarioView } from './scenario-views';
import { loadTable, requireUuid } from './stored-table';
import { WorkflowScenariosService } from './workflow-scenarios.service';

const FIRST_SCENARIOS = 200;

export interface GenerateRequest {
  tableId: string;
  version?: number;
  seed?: number;
}

export interface ExpectationEdit {
  matchedRows: string[];
  outputs: Record<string, unknown> | null;
  errorCode?: string | null;
  description?: string;
}

/**
 * Scenario plans of decision tables: generation (the deterministic generator of @arbiter/scenarios over a
 * stored version, on a scenario worker thread), reading plans and scenarios, and the one edit a person makes — an expectation, which
 * marks the scenario confirmed: regeneration replaces every other scenario and keeps confirmed ones.
 */
@Injectable()
export class ScenarioPlansService {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ScenarioRepository) private readonly repo: ScenarioRepository,
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
    @Inject(ScenariosSettings) private readonly settings: ScenariosSettings,
    @Inject(WorkflowScenariosService) private readonly workflows: WorkflowScenariosService,
    @Inject(ScenarioSimilarity) private readonly similarity: ScenarioSimilarity,
    @Inject(ScenarioWorkers) private readonly workers: ScenarioWorkers,
  ) {}

  async generate(request: GenerateRequest): Promise<PlanView> {
    const { table, definition } = await loadTable(this.tables, request.tableId, request.version);
    // on a worker thread: the service's loop only reads the table and stores the plan
    const generated = await this.workers.generate(definition, {
      seedRuleCode: table.name,
      seed: request.seed ?? 1,
      maxScenarios: this.settings.maxScenariosPerPlan,
    });
    const thinned = await this.similarity.thinGenerated(generated.scenarios);
    const actor = RequestContext.actor();
    return this.uow.run(async (m) => {
      const now = new Date();
      const existing = await this.repo.planOfTable(m, table.id);
      const plan: ScenarioPlanEntity = Object.assign(existing ?? new ScenarioPlanEntity(), {
        id: existing?.id ?? randomUUID(),
        tenantId: RequestContext.tenantId(),
        tableId: table.id,
        tableVersion: table.version,
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
      return this.view(m, plan, kept);
    });
  }

  private async view(m: EntityManager, plan: ScenarioPlanEntity, confirmedKept?: number): Promise<PlanView> {
    const count = await this.repo.countScenarios(m, plan.id);
    const first = await this.repo.scenarioPage(m, plan.id, 0, FIRST_SCENARIOS, {});
    const kept = confirmedKept ?? (await this.repo.countConfirmed(m, plan.id));
    return planView(plan, count, kept, first);
  }

  async plans(page: PageRequest, tableId?: string): Promise<PlanView[]> {
    return this.uow.run(async (m) => {
      if (tableId !== undefined && !/^[0-9a-f-]{36}$/i.test(tableId)) return [];
      const plans = await this.repo.plans(m, page.offset, page.pageSize, tableId);
      const out: PlanView[] = [];
      for (const p of plans) out.push(planView(p, await this.repo.countScenarios(m, p.id), 0, []));
      return out;
    });
  }

  async plan(planId: string): Promise<PlanView> {
    requireUuid(planId, E.PlanNotFound, 'Scenario plan');
    return this.uow.run(async (m) => this.view(m, await this.requirePlan(m, planId)));
  }

  async scenarios(
    planId: string,
    page: PageRequest,
    filter: { status?: string; type?: string },
  ): Promise<ScenarioView[]> {
    requireUuid(planId, E.PlanNotFound, 'Scenario plan');
    return this.uow.run(async (m) => {
      await this.requirePlan(m, planId);
      return (await this.repo.scenarioPage(m, planId, page.offset, page.pageSize, filter)).map((s) =>
        scenarioView(s),
      );
    });
  }

  async scenario(id: string): Promise<ScenarioView> {
    requireUuid(id, E.ScenarioNotFound, 'Scenario');
    return this.uow.run(async (m) => {
      const s = await this.repo.scenario(m, id);
      if (!s) throw AppError.notFound(E.ScenarioNotFound, `Scenario '${id}' does not exist`);
      return scenarioView(s, await this.repo.lastResult(m, id));
    });
  }

  /** A person states what must happen: the scenario is confirmed and no regeneration replaces it. */
  async editExpectation(id: string, edit: ExpectationEdit): Promise<ScenarioView> {
    requireUuid(id, E.ScenarioNotFound, 'Scenario');
    const found = await this.uow.run(async (m) => {
      const s = await this.repo.scenario(m, id);
      if (!s) throw AppError.notFound(E.ScenarioNotFound, `Scenario '${id}' does not exist`);
      return { scenario: s, plan: await this.requirePlan(m, s.planId) };
    });
    const owner = found.plan.tableId
      ? await loadTable(this.tables, found.plan.tableId).then(({ table }) => ({
          what: `Table '${table.name}'`,
          ids: table.rows.map((r) => r.id),
        }))
      : {
          what: `Workflow '${found.plan.workflowName}'`,
          ids: await this.workflows.itemsOf(found.plan),
        };
    const known = new Set(owner.ids);
    const unknown = edit.matchedRows.filter((r) => !known.has(r));
    if (unknown.length)
      throw AppError.badRequest(E.UnknownRow, `${owner.what} has no row, rule or node '${unknown[0]}'`, [
        { field: 'matchedRows', message: `unknown row id '${unknown[0]}'` },
      ]);
    const actor = RequestContext.actor();
    return this.uow.run(async (m) => {
      const s = found.scenario;
      const expected: ExpectedBehavior = {
        matchedRows: edit.matchedRows,
        outputs: edit.outputs,
        errorCode: edit.errorCode ?? null,
        targetRowId: s.expectedBehavior.targetRowId ?? null,
        description: edit.description ?? `confirmed by ${actor}`,
      };
      Object.assign(s, {
        expectedBehavior: expected,
        confirmed: true,
        confirmedBy: actor,
        confirmedAt: new Date(),
        status: 'Pending',
      });
      await this.repo.updateScenario(m, s);
      return scenarioView(s, await this.repo.lastResult(m, id));
    });
  }

  private async requirePlan(m: EntityManager, planId: string): Promise<ScenarioPlanEntity> {
    const plan = await this.repo.plan(m, planId);
    if (!plan) throw AppError.notFound(E.PlanNotFound, `Scenario plan '${planId}' does not exist`);
    return plan;
  }
}
