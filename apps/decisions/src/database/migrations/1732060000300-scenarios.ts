import { enableTenantIsolation, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scenario records (spec 2, "Scenario records"): one plan per decision table, its scenarios, the runs of
 * the plan (plain runs and CI gate runs) and each scenario's result per run. Tenant-isolated by
 * row-level security; deleted with their table.
 */
export class Scenarios1732060000300 implements MigrationInterface {
  name = 'Scenarios1732060000300';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await runner.query(`
      CREATE TABLE IF NOT EXISTS scenario_plans (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        table_id uuid NOT NULL REFERENCES decision_tables(id) ON DELETE CASCADE,
        table_version int NOT NULL,
        seed_rule_code text NOT NULL,
        scope text NOT NULL,
        seed bigint NOT NULL,
        ai_model_used text NULL,
        generation_duration double precision NOT NULL,
        candidates int NOT NULL,
        duplicates_removed int NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        modified_at timestamptz NOT NULL,
        CONSTRAINT uq_scenario_plans_table UNIQUE (tenant_id, table_id)
      )`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS scenarios (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        plan_id uuid NOT NULL REFERENCES scenario_plans(id) ON DELETE CASCADE,
        position int NOT NULL,
        seed_rule_code text NOT NULL,
        scenario_name text NOT NULL,
        type text NOT NULL,
        scope text NOT NULL,
        input_facts jsonb NOT NULL,
        input_hash text NOT NULL,
        expected_behavior jsonb NOT NULL,
        origin jsonb NOT NULL,
        status text NOT NULL,
        confirmed boolean NOT NULL DEFAULT false,
        confirmed_by text NULL,
        confirmed_at timestamptz NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT uq_scenarios_plan_hash UNIQUE (plan_id, input_hash)
      )`);
    await runner.query(`CREATE INDEX IF NOT EXISTS ix_scenarios_plan ON scenarios (plan_id, position)`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS scenario_runs (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        plan_id uuid NOT NULL REFERENCES scenario_plans(id) ON DELETE CASCADE,
        table_version int NOT NULL,
        kind text NOT NULL,
        passed int NOT NULL,
        failed int NOT NULL,
        errored int NOT NULL,
        coverage jsonb NOT NULL,
        mutation jsonb NULL,
        gate jsonb NULL,
        duration double precision NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_scenario_runs_plan ON scenario_runs (plan_id, created_at DESC)`,
    );
    await runner.query(`
      CREATE TABLE IF NOT EXISTS scenario_results (
        run_id uuid NOT NULL REFERENCES scenario_runs(id) ON DELETE CASCADE,
        scenario_id uuid NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        position int NOT NULL,
        status text NOT NULL,
        is_success boolean NOT NULL,
        matches_expectation boolean NOT NULL,
        output_facts jsonb NULL,
        matched_rows jsonb NOT NULL,
        errors jsonb NOT NULL,
        duration double precision NOT NULL,
        analysis jsonb NOT NULL,
        PRIMARY KEY (run_id, scenario_id)
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_scenario_results_run ON scenario_results (run_id, position)`,
    );
    for (const table of ['scenario_plans', 'scenarios', 'scenario_runs', 'scenario_results'])
      await enableTenantIsolation(runner, table, role);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS scenario_results');
    await runner.query('DROP TABLE IF EXISTS scenario_runs');
    await runner.query('DROP TABLE IF EXISTS scenarios');
    await runner.query('DROP TABLE IF EXISTS scenario_plans');
  }
}
