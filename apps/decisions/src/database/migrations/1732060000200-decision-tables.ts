import { enableTenantIsolation, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** Decision tables, their versions and audit trail, each tenant-isolated by row-level security. */
export class DecisionTables1732060000200 implements MigrationInterface {
  name = 'DecisionTables1732060000200';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await runner.query(`
      CREATE TABLE IF NOT EXISTS decision_tables (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        name text NOT NULL,
        description text NULL,
        latest_version int NOT NULL,
        created_at timestamptz NOT NULL,
        modified_at timestamptz NOT NULL,
        CONSTRAINT uq_decision_tables_tenant_name UNIQUE (tenant_id, name)
      )`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS decision_table_versions (
        table_id uuid NOT NULL REFERENCES decision_tables(id) ON DELETE CASCADE,
        version int NOT NULL,
        tenant_id text NOT NULL,
        definition jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        created_by text NOT NULL,
        comment text NULL,
        PRIMARY KEY (table_id, version)
      )`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS decision_table_audit (
        id bigserial PRIMARY KEY,
        tenant_id text NOT NULL,
        table_id uuid NOT NULL,
        table_name text NOT NULL,
        action text NOT NULL,
        actor text NOT NULL,
        version int NULL,
        comment text NULL,
        changes_summary text NOT NULL,
        timestamp timestamptz NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_decision_table_audit_table ON decision_table_audit (tenant_id, table_id, id DESC)`,
    );
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_decision_table_audit_time ON decision_table_audit (id DESC)`,
    );
    for (const table of ['decision_tables', 'decision_table_versions', 'decision_table_audit'])
      await enableTenantIsolation(runner, table, role);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS decision_table_audit');
    await runner.query('DROP TABLE IF EXISTS decision_table_versions');
    await runner.query('DROP TABLE IF EXISTS decision_tables');
  }
}
