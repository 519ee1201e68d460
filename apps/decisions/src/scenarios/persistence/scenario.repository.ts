import { parseStoredJsonSliced, stringifyJsonSliced } from '@arbiter/platform';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ScenarioEntity, ScenarioPlanEntity, ScenarioResultEntity, ScenarioRunEntity } from './entities';

export interface TenantStatistics {
  plans: number;
  scenarios: number;
  confirmed: number;
  byStatus: Record<string, number>;
  runs: number;
  gateRuns: number;
  gatesPassed: number;
}

/** Storage of plans, scenarios, runs and results. Every method runs inside the caller's unit of work. */
export abstract class ScenarioRepository {
  abstract planOfTable(m: EntityManager, tableId: string): Promise<ScenarioPlanEntity | null>;
  abstract plan(m: EntityManager, id: string): Promise<ScenarioPlanEntity | null>;
  abstract plans(
    m: EntityManager,
    offset: number,
    limit: number,
    tableId?: string,
  ): Promise<ScenarioPlanEntity[]>;
  abstract savePlan(m: EntityManager, plan: ScenarioPlanEntity): Promise<void>;
  abstract scenarios(m: EntityManager, planId: string): Promise<ScenarioEntity[]>;
  abstract scenarioPage(
    m: EntityManager,
    planId: string,
    offset: number,
    limit: number,
    filter: { status?: string; type?: string },
  ): Promise<ScenarioEntity[]>;
  abstract countScenarios(m: EntityManager, planId: string): Promise<number>;
  abstract countConfirmed(m: EntityManager, planId: string): Promise<number>;
  abstract scenario(m: EntityManager, id: string): Promise<ScenarioEntity | null>;
  abstract deleteUnconfirmed(m: EntityManager, planId: string): Promise<void>;
  abstract insertScenarios(m: EntityManager, scenarios: ScenarioEntity[]): Promise<void>;
  abstract updateScenario(m: EntityManager, scenario: ScenarioEntity): Promise<void>;
  abstract setStatuses(m: EntityManager, statuses: { id: string; status: string }[]): Promise<void>;
  abstract insertRun(
    m: EntityManager,
    run: ScenarioRunEntity,
    results: ScenarioResultEntity[],
  ): Promise<void>;
  abstract run(m: EntityManager, id: string): Promise<ScenarioRunEntity | null>;
  abstract runs(
    m: EntityManager,
    planId: string,
    offset: number,
    limit: number,
  ): Promise<ScenarioRunEntity[]>;
  abstract results(
    m: EntityManager,
    runId: string,
    offset: number,
    limit: number,
  ): Promise<ScenarioResultEntity[]>;
  abstract lastResult(m: EntityManager, scenarioId: string): Promise<ScenarioResultEntity | null>;
  abstract statistics(m: EntityManager): Promise<TenantStatistics>;
  abstract planOfWorkflow(m: EntityManager, workflowName: string): Promise<ScenarioPlanEntity | null>;
  /** the latest gate run of a workflow version (null: none) */
  abstract latestGate(m: EntityManager, planId: string, version: number): Promise<ScenarioRunEntity | null>;
  /** row and condition coverage (percent) of each plan's latest run */
  abstract latestCoverages(m: EntityManager): Promise<{ rows: number; conditions: number }[]>;
}

/** rows a write statement carries (PGlite runs each statement on the service's thread: kept short) */
const CHUNK = 250;

/**
 * Rows written as one `jsonb_to_recordset($1)` statement per CHUNK: the rows go as JSON text written in
 * slices of the event loop. TypeORM's multi-row insert built its SQL and parameters on the service's
 * thread for ~100–300 ms a 500-row chunk (escaping ~7,000 parameters into the query text, measured at load
 * 12–15), most of a 1,000-row table's plan generation as the service's loop saw it.
 */
const INSERT_SCENARIOS = `INSERT INTO scenarios (id, tenant_id, plan_id, position, seed_rule_code, scenario_name, type,
    scope, input_facts, input_hash, expected_behavior, origin, status, confirmed, confirmed_by, confirmed_at, created_at)
  SELECT id, "tenantId", "planId", position, "seedRuleCode", "scenarioName", type, scope, "inputFacts",
    "inputHash", "expectedBehavior", origin, status, confirmed, "confirmedBy", "confirmedAt", "createdAt"
  FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, "tenantId" text, "planId" uuid, position int,
    "seedRuleCode" text, "scenarioName" text, type text, scope text, "inputFacts" jsonb, "inputHash" text,
    "expectedBehavior" jsonb, origin jsonb, status text, confirmed boolean, "confirmedBy" text,
    "confirmedAt" timestamptz, "createdAt" timestamptz)`;
const INSERT_RESULTS = `INSERT INTO scenario_results (run_id, scenario_id, tenant_id, position, status, is_success,
    matches_expectation, output_facts, matched_rows, errors, duration, analysis)
  SELECT "runId", "scenarioId", "tenantId", position, status, "isSuccess", "matchesExpectation",
    "outputFacts", "matchedRows", errors, duration, analysis
  FROM jsonb_to_recordset($1::jsonb) AS r("runId" uuid, "scenarioId" uuid, "tenantId" text, position int,
    status text, "isSuccess" boolean, "matchesExpectation" boolean, "outputFacts" jsonb, "matchedRows" jsonb,
    errors jsonb, duration double precision, analysis jsonb)`;
/**
 * A plan's scenarios by position, SCENARIO_PAGE at a time (keyset on position, id), each page as one JSON
 * text parsed in slices of the event loop: TypeORM turned the 9,029 rows of a 1,000-row table's plan into
 * entities in one synchronous pass (~90 ms of the loop), and PGlite, on the service's thread, builds each
 * page's text in one go.
 */
const SCENARIO_PAGE = 1000;
const SELECT_SCENARIOS = `SELECT coalesce(json_agg(s ORDER BY s.position, s.id), '[]')::text AS rows FROM (
    SELECT id, tenant_id AS "tenantId", plan_id AS "planId", position, seed_rule_code AS "seedRuleCode",
      scenario_name AS "scenarioName", type, scope, input_facts AS "inputFacts", input_hash AS "inputHash",
      expected_behavior AS "expectedBehavior", origin, status, confirmed, confirmed_by AS "confirmedBy",
      confirmed_at AS "confirmedAt", created_at AS "createdAt"
    FROM scenarios WHERE plan_id = $1 AND (position, id) > ($2, $3::uuid)
    ORDER BY position, id LIMIT ${SCENARIO_PAGE}) s`;
const SET_STATUSES = `UPDATE scenarios s SET status = r.status
  FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, status text) WHERE s.id = r.id`;

async function inChunks<T>(m: EntityManager, sql: string, rows: readonly T[], size = CHUNK): Promise<void> {
  for (let i = 0; i < rows.length; i += size)
    await m.query(sql, [await stringifyJsonSliced(rows.slice(i, i + size))]);
}

@Injectable()
export class TypeOrmScenarioRepository extends ScenarioRepository {
  planOfTable(m: EntityManager, tableId: string) {
    return m.getRepository(ScenarioPlanEntity).findOne({ where: { tableId } });
  }
  planOfWorkflow(m: EntityManager, workflowName: string) {
    return m.getRepository(ScenarioPlanEntity).findOne({ where: { workflowName } });
  }
  latestGate(m: EntityManager, planId: string, version: number) {
    return m.getRepository(ScenarioRunEntity).findOne({
      where: { planId, tableVersion: version, kind: 'Gate' },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }
  plan(m: EntityManager, id: string) {
    return m.getRepository(ScenarioPlanEntity).findOne({ where: { id } });
  }
  plans(m: EntityManager, offset: number, limit: number, tableId?: string) {
    return m.getRepository(ScenarioPlanEntity).find({
      where: tableId ? { tableId } : {},
      order: { createdAt: 'DESC', id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }
  async savePlan(m: EntityManager, plan: ScenarioPlanEntity) {
    await m.getRepository(ScenarioPlanEntity).save(plan);
  }
  async scenarios(m: EntityManager, planId: string) {
    const scenarios: ScenarioEntity[] = [];
    let after: [number, string] = [-2147483648, '00000000-0000-0000-0000-000000000000'];
    for (;;) {
      const [{ rows }] = (await m.query(SELECT_SCENARIOS, [planId, ...after])) as { rows: string }[];
      const page = (await parseStoredJsonSliced(rows)) as ScenarioEntity[];
      for (const s of page) {
        s.createdAt = new Date(s.createdAt);
        if (s.confirmedAt !== null) s.confirmedAt = new Date(s.confirmedAt);
        scenarios.push(s);
      }
      if (page.length < SCENARIO_PAGE) return scenarios;
      const last = page[page.length - 1];
      after = [last.position, last.id];
    }
  }
  countConfirmed(m: EntityManager, planId: string) {
    return m.getRepository(ScenarioEntity).count({ where: { planId, confirmed: true } });
  }
  scenarioPage(
    m: EntityManager,
    planId: string,
    offset: number,
    limit: number,
    filter: { status?: string; type?: string },
  ) {
    return m.getRepository(ScenarioEntity).find({
      where: {
        planId,
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.type ? { type: filter.type } : {}),
      },
      order: { position: 'ASC' },
      skip: offset,
      take: limit,
    });
  }
  countScenarios(m: EntityManager, planId: string) {
    return m.getRepository(ScenarioEntity).count({ where: { planId } });
  }
  scenario(m: EntityManager, id: string) {
    return m.getRepository(ScenarioEntity).findOne({ where: { id } });
  }
  async deleteUnconfirmed(m: EntityManager, planId: string) {
    await m.getRepository(ScenarioEntity).delete({ planId, confirmed: false });
  }
  async insertScenarios(m: EntityManager, scenarios: ScenarioEntity[]) {
    await inChunks(m, INSERT_SCENARIOS, scenarios);
  }
  async updateScenario(m: EntityManager, scenario: ScenarioEntity) {
    const { id, ...rest } = scenario;
    await m.getRepository(ScenarioEntity).update({ id }, rest as never);
  }
  async setStatuses(m: EntityManager, statuses: { id: string; status: string }[]) {
    await inChunks(m, SET_STATUSES, statuses, 4 * CHUNK);
  }
  async insertRun(m: EntityManager, run: ScenarioRunEntity, results: ScenarioResultEntity[]) {
    await m.getRepository(ScenarioRunEntity).insert(run as never);
    await inChunks(m, INSERT_RESULTS, results);
  }
  run(m: EntityManager, id: string) {
    return m.getRepository(ScenarioRunEntity).findOne({ where: { id } });
  }
  runs(m: EntityManager, planId: string, offset: number, limit: number) {
    return m
      .getRepository(ScenarioRunEntity)
      .find({ where: { planId }, order: { createdAt: 'DESC', id: 'ASC' }, skip: offset, take: limit });
  }
  results(m: EntityManager, runId: string, offset: number, limit: number) {
    return m
      .getRepository(ScenarioResultEntity)
      .find({ where: { runId }, order: { position: 'ASC' }, skip: offset, take: limit });
  }
  async lastResult(m: EntityManager, scenarioId: string) {
    const rows: { run_id: string }[] = await m.query(
      `SELECT r.run_id FROM scenario_results r JOIN scenario_runs u ON u.id = r.run_id
        WHERE r.scenario_id = $1 ORDER BY u.created_at DESC LIMIT 1`,
      [scenarioId],
    );
    if (!rows.length) return null;
    return m.getRepository(ScenarioResultEntity).findOne({ where: { runId: rows[0].run_id, scenarioId } });
  }
  async statistics(m: EntityManager): Promise<TenantStatistics> {
    const [plans] = await m.query(`SELECT count(*)::int AS n FROM scenario_plans`);
    const statuses: { status: string; n: number; confirmed: number }[] = await m.query(
      `SELECT status, count(*)::int AS n, count(*) FILTER (WHERE confirmed)::int AS confirmed FROM scenarios GROUP BY status`,
    );
    const [runs] = await m.query(
      `SELECT count(*)::int AS runs, count(*) FILTER (WHERE kind = 'Gate')::int AS gates,
              count(*) FILTER (WHERE kind = 'Gate' AND (gate->>'passed')::boolean)::int AS passed
         FROM scenario_runs`,
    );
    const byStatus: Record<string, number> = {};
    for (const s of statuses) byStatus[s.status] = s.n;
    return {
      plans: plans.n,
      scenarios: statuses.reduce((a, s) => a + s.n, 0),
      confirmed: statuses.reduce((a, s) => a + s.confirmed, 0),
      byStatus,
      runs: runs.runs,
      gateRuns: runs.gates,
      gatesPassed: runs.passed,
    };
  }
  async latestCoverages(m: EntityManager) {
    const rows: { rows: string | null; conditions: string | null }[] = await m.query(
      // a workflow run's coverage has `percent` (its gate figure) and `rules` instead of rows and conditions
      `SELECT DISTINCT ON (plan_id) COALESCE(coverage->'rows'->>'percent', coverage->>'percent') AS rows,
              COALESCE(coverage->'conditions'->>'percent', coverage->'rules'->>'percent') AS conditions
         FROM scenario_runs ORDER BY plan_id, created_at DESC`,
    );
    return rows.map((r) => ({ rows: Number(r.rows ?? 0), conditions: Number(r.conditions ?? 0) }));
  }
}
