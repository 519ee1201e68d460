import { enableTenantIsolation, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Execution audit entries (one row per rule execution), written in batches by the execution audit
 * sink. `execution_id` is the primary key so a replayed batch (retry, spill file) inserts nothing twice.
 * Tenant-isolated by row-level security; append-only for the application role.
 */
export class ExecutionAudit1732060000400 implements MigrationInterface {
  name = 'ExecutionAudit1732060000400';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await runner.query(`
      CREATE TABLE IF NOT EXISTS execution_audit (
        execution_id text PRIMARY KEY,
        tenant_id text NOT NULL,
        workflow_name text NOT NULL,
        version int NULL,
        correlation_id text NOT NULL,
        executed_at timestamptz NOT NULL,
        execution_time_ms double precision NOT NULL,
        rules_matched jsonb NOT NULL,
        status text NOT NULL,
        error_codes text[] NOT NULL,
        arm text NOT NULL,
        rollout_id text NULL,
        mode text NOT NULL,
        shadow_diff jsonb NULL
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_execution_audit_workflow
         ON execution_audit (tenant_id, workflow_name, executed_at DESC, execution_id DESC)`,
    );
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_execution_audit_rollout ON execution_audit (tenant_id, rollout_id)`,
    );
    await enableTenantIsolation(runner, 'execution_audit', role);
    await runner.query(`REVOKE UPDATE, DELETE ON execution_audit FROM ${role}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS execution_audit');
  }
}
