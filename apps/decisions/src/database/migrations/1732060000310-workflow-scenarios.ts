import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `Workflow` scope: a scenario plan belongs to a decision table or to a control-plane workflow (rule set
 * or flow, read from the control plane over the bus), never both. Runs record the version they ran
 * against in `table_version` (a table's or a workflow's).
 */
export class WorkflowScenarios1732060000310 implements MigrationInterface {
  name = 'WorkflowScenarios1732060000310';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE scenario_plans ALTER COLUMN table_id DROP NOT NULL`);
    await runner.query(`ALTER TABLE scenario_plans ALTER COLUMN table_version DROP NOT NULL`);
    await runner.query(`ALTER TABLE scenario_plans ADD COLUMN IF NOT EXISTS workflow_name text NULL`);
    await runner.query(`ALTER TABLE scenario_plans ADD COLUMN IF NOT EXISTS workflow_version int NULL`);
    await runner.query(`
      ALTER TABLE scenario_plans ADD CONSTRAINT ck_scenario_plans_owner CHECK (
        (table_id IS NOT NULL AND table_version IS NOT NULL AND workflow_name IS NULL AND workflow_version IS NULL)
        OR (table_id IS NULL AND table_version IS NULL AND workflow_name IS NOT NULL AND workflow_version IS NOT NULL))`);
    await runner.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS uq_scenario_plans_workflow ON scenario_plans (tenant_id, workflow_name) WHERE workflow_name IS NOT NULL`,
    );
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_scenario_runs_gate ON scenario_runs (plan_id, table_version, created_at DESC) WHERE kind = 'Gate'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX IF EXISTS ix_scenario_runs_gate');
    await runner.query('DELETE FROM scenario_plans WHERE workflow_name IS NOT NULL');
    await runner.query('DROP INDEX IF EXISTS uq_scenario_plans_workflow');
    await runner.query('ALTER TABLE scenario_plans DROP CONSTRAINT IF EXISTS ck_scenario_plans_owner');
    await runner.query('ALTER TABLE scenario_plans DROP COLUMN IF EXISTS workflow_version');
    await runner.query('ALTER TABLE scenario_plans DROP COLUMN IF EXISTS workflow_name');
    await runner.query('ALTER TABLE scenario_plans ALTER COLUMN table_version SET NOT NULL');
    await runner.query('ALTER TABLE scenario_plans ALTER COLUMN table_id SET NOT NULL');
  }
}
