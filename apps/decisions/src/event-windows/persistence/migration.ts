import { enableTenantIsolation, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** Event-window (CEP) configurations, tenant-isolated by row-level security; ids are unique per tenant. */
export class EventWindows1732060000900 implements MigrationInterface {
  name = 'EventWindows1732060000900';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE IF NOT EXISTS event_window_configs (
        tenant_id text NOT NULL,
        id text NOT NULL,
        name text NOT NULL,
        window_type text NOT NULL CHECK (window_type IN ('Sliding', 'Tumbling', 'Session')),
        window_size_ms bigint NOT NULL CHECK (window_size_ms > 0),
        time_to_live_ms bigint NOT NULL,
        allowed_lateness_ms bigint NOT NULL DEFAULT 0 CHECK (allowed_lateness_ms >= 0),
        correlation_key text NOT NULL,
        value_path text NULL,
        aggregates jsonb NOT NULL,
        emit_mode text NOT NULL CHECK (emit_mode IN ('OnUpdate', 'OnClose')),
        version int NOT NULL,
        created_at timestamptz NOT NULL,
        modified_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, id),
        CONSTRAINT ck_event_window_ttl CHECK (time_to_live_ms >= window_size_ms)
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ix_event_window_configs_name ON event_window_configs (tenant_id, name, id)`,
    );
    await enableTenantIsolation(runner, 'event_window_configs', migrationApplicationRole());
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE IF EXISTS event_window_configs');
  }
}
