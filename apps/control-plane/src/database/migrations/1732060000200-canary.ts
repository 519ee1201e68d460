import { enableTenantIsolation, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Canary rollouts (owned by the tenant whose rule set is rolled out; at most one Active rollout per
 * tenant and workflow) and tenant rule assignments (one row per targeted tenant and workflow while a
 * tenant-targeted rollout is Active). Both tables are tenant-isolated by row-level security; the
 * application role may not delete rollouts (they are history).
 */
export class Canary1732060000200 implements MigrationInterface {
  name = 'Canary1732060000200';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await runner.query(`
      CREATE TABLE IF NOT EXISTS canary_rollouts (
        rollout_id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        workflow_name text NOT NULL,
        version int NOT NULL,
        previous_active_version int NULL,
        status text NOT NULL,
        target_percentage int NULL,
        target_tenant_ids jsonb NULL,
        started_at timestamptz NOT NULL,
        created_by text NOT NULL,
        promoted_at timestamptz NULL,
        rolled_back_at timestamptz NULL,
        reason text NULL,
        CONSTRAINT ck_canary_rollouts_status CHECK (status IN ('Active', 'Promoted', 'RolledBack')),
        CONSTRAINT ck_canary_rollouts_percentage
          CHECK (target_percentage IS NULL OR target_percentage BETWEEN 1 AND 100),
        CONSTRAINT ck_canary_rollouts_one_target CHECK ((target_percentage IS NULL) <> (target_tenant_ids IS NULL))
      )`);
    await runner.query(`
      CREATE UNIQUE INDEX IF NOT EXISTS ux_canary_rollouts_one_active
        ON canary_rollouts (tenant_id, workflow_name) WHERE status = 'Active'`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_canary_rollouts_workflow ON canary_rollouts (tenant_id, workflow_name, started_at DESC)`,
    );
    await runner.query(`
      CREATE TABLE IF NOT EXISTS tenant_rule_assignments (
        tenant_id text NOT NULL,
        workflow_name text NOT NULL,
        version int NOT NULL,
        rollout_id uuid NOT NULL REFERENCES canary_rollouts (rollout_id),
        owner_tenant_id text NOT NULL,
        assigned_at timestamptz NOT NULL,
        assigned_by text NOT NULL,
        PRIMARY KEY (tenant_id, workflow_name)
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_tenant_rule_assignments_rollout ON tenant_rule_assignments (rollout_id)`,
    );
    for (const table of ['canary_rollouts', 'tenant_rule_assignments'])
      await enableTenantIsolation(runner, table, role);
    await runner.query(`REVOKE DELETE ON canary_rollouts FROM ${role}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS tenant_rule_assignments');
    await runner.query('DROP TABLE IF EXISTS canary_rollouts');
  }
}
