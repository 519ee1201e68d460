import { enableTenantIsolation, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rule sets (one row per tenant and workflow: the version counter, the active version and the change
 * revision), their immutable versions, and the signed, hash-chained operator audit with its chain head
 * per tenant. Every table is tenant-isolated by row-level security. The application role may not
 * UPDATE or DELETE audit rows, and a trigger refuses any change to a saved version's document.
 */
export class RuleSets1732060000100 implements MigrationInterface {
  name = 'RuleSets1732060000100';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await runner.query(`
      CREATE TABLE IF NOT EXISTS rule_sets (
        tenant_id text NOT NULL,
        workflow_name text NOT NULL,
        latest_version int NOT NULL,
        active_version int NULL,
        revision bigint NOT NULL,
        created_at timestamptz NOT NULL,
        modified_at timestamptz NOT NULL,
        modified_by text NOT NULL,
        PRIMARY KEY (tenant_id, workflow_name)
      )`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS rule_set_versions (
        tenant_id text NOT NULL,
        workflow_name text NOT NULL,
        version int NOT NULL,
        status text NOT NULL,
        shape text NOT NULL,
        document jsonb NOT NULL,
        change_description text NULL,
        created_at timestamptz NOT NULL,
        created_by text NOT NULL,
        submitted_by text NULL,
        submitted_at timestamptz NULL,
        approved_by text NULL,
        approved_at timestamptz NULL,
        activated_by text NULL,
        activated_at timestamptz NULL,
        archived_at timestamptz NULL,
        rejected_by text NULL,
        rejected_at timestamptz NULL,
        rejection_reason text NULL,
        PRIMARY KEY (tenant_id, workflow_name, version),
        CONSTRAINT ck_rule_set_versions_status
          CHECK (status IN ('Draft', 'PendingApproval', 'Approved', 'Active', 'Archived', 'Rejected')),
        CONSTRAINT ck_rule_set_versions_positive CHECK (version >= 1)
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_rule_set_versions_status ON rule_set_versions (tenant_id, status)`,
    );
    await runner.query(`
      CREATE OR REPLACE FUNCTION rule_set_versions_immutable() RETURNS trigger AS $$
      BEGIN
        IF NEW.document IS DISTINCT FROM OLD.document OR NEW.shape IS DISTINCT FROM OLD.shape
           OR NEW.version IS DISTINCT FROM OLD.version OR NEW.workflow_name IS DISTINCT FROM OLD.workflow_name
           OR NEW.tenant_id IS DISTINCT FROM OLD.tenant_id OR NEW.created_at IS DISTINCT FROM OLD.created_at
           OR NEW.created_by IS DISTINCT FROM OLD.created_by THEN
          RAISE EXCEPTION 'rule set versions are immutable (only their status may change)';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await runner.query(`DROP TRIGGER IF EXISTS tr_rule_set_versions_immutable ON rule_set_versions`);
    await runner.query(`
      CREATE TRIGGER tr_rule_set_versions_immutable BEFORE UPDATE ON rule_set_versions
        FOR EACH ROW EXECUTE FUNCTION rule_set_versions_immutable()`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS rule_set_audit (
        tenant_id text NOT NULL,
        seq bigint NOT NULL,
        workflow_name text NOT NULL,
        timestamp timestamptz NOT NULL,
        actor text NOT NULL,
        action text NOT NULL,
        version int NULL,
        detail text NULL,
        status text NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        signature text NOT NULL,
        key_id text NOT NULL,
        PRIMARY KEY (tenant_id, seq)
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_rule_set_audit_workflow ON rule_set_audit (tenant_id, workflow_name, seq DESC)`,
    );
    await runner.query(`
      CREATE TABLE IF NOT EXISTS rule_set_audit_heads (
        tenant_id text PRIMARY KEY,
        seq bigint NOT NULL,
        hash text NOT NULL
      )`);
    for (const table of ['rule_sets', 'rule_set_versions', 'rule_set_audit', 'rule_set_audit_heads'])
      await enableTenantIsolation(runner, table, role);
    // Append-only for the application: audit rows are never updated or deleted by the service.
    await runner.query(`REVOKE UPDATE, DELETE ON rule_set_audit FROM ${role}`);
    await runner.query(`REVOKE DELETE ON rule_set_audit_heads FROM ${role}`);
    await runner.query(`REVOKE DELETE ON rule_set_versions FROM ${role}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS rule_set_audit_heads');
    await runner.query('DROP TABLE IF EXISTS rule_set_audit');
    await runner.query('DROP TABLE IF EXISTS rule_set_versions');
    await runner.query('DROP FUNCTION IF EXISTS rule_set_versions_immutable');
    await runner.query('DROP TABLE IF EXISTS rule_sets');
  }
}
