import { enableTenantIsolation, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * UI catalog snapshots: the tenant's endpoint-to-rule bindings and binding graph as captured by
 * `POST /api/v1/ui-catalog/snapshots/capture`. Tenant-isolated by row-level security; snapshots are
 * immutable (the application role may not UPDATE them).
 */
export class UiCatalog1732060000500 implements MigrationInterface {
  name = 'UiCatalog1732060000500';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await runner.query(`
      CREATE TABLE IF NOT EXISTS ui_catalog_snapshots (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        captured_at timestamptz NOT NULL,
        captured_by text NOT NULL,
        label text NULL,
        binding_count int NOT NULL,
        node_count int NOT NULL,
        edge_count int NOT NULL,
        bindings jsonb NOT NULL,
        graph jsonb NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_ui_catalog_snapshots_tenant ON ui_catalog_snapshots (tenant_id, captured_at DESC)`,
    );
    await enableTenantIsolation(runner, 'ui_catalog_snapshots', role);
    await runner.query(`REVOKE UPDATE ON ui_catalog_snapshots FROM ${role}`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS ui_catalog_snapshots');
  }
}
