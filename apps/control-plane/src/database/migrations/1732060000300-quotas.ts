import { enableTenantIsolation, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenant quotas (the spec's TenantQuota: assigned tier and explicit limit overrides), usage windows
 * (evaluations counted per tenant and UTC minute / day) and concurrency leases (slots one replica
 * holds for a tenant until `expires_at`). All tenant-isolated by row-level security.
 *
 * Two functions keep each shared-state change to one atomic statement:
 * - `quota_reserve_evaluations` adds up to `wanted` evaluations to the tenant's minute and day
 *   windows, never past either limit (NULL: unlimited), and returns how many it granted;
 * - `quota_lease_slots` sets the calling replica's lease to up to `wanted` slots so that the sum of
 *   live (unexpired) leases stays within the limit, serialised per tenant by an advisory lock.
 * They run as the caller (not SECURITY DEFINER), so row-level security applies inside them.
 */
export class Quotas1732060000300 implements MigrationInterface {
  name = 'Quotas1732060000300';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await runner.query(`
      CREATE TABLE IF NOT EXISTS tenant_quotas (
        tenant_id text PRIMARY KEY,
        tier text NULL,
        overrides jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at timestamptz NOT NULL,
        updated_by text NOT NULL,
        CONSTRAINT ck_tenant_quotas_tier CHECK (tier IS NULL OR tier IN ('Free', 'Licensed', 'Enterprise')),
        CONSTRAINT ck_tenant_quotas_overrides CHECK (jsonb_typeof(overrides) = 'object')
      )`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS quota_usage_windows (
        tenant_id text NOT NULL,
        window_kind text NOT NULL,
        window_start timestamptz NOT NULL,
        used bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant_id, window_kind, window_start),
        CONSTRAINT ck_quota_usage_windows_kind CHECK (window_kind IN ('minute', 'day')),
        CONSTRAINT ck_quota_usage_windows_used CHECK (used >= 0)
      )`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS quota_concurrency_leases (
        tenant_id text NOT NULL,
        replica_id text NOT NULL,
        slots int NOT NULL,
        in_use int NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, replica_id),
        CONSTRAINT ck_quota_concurrency_leases_counts CHECK (slots >= 0 AND in_use >= 0)
      )`);
    for (const table of ['tenant_quotas', 'quota_usage_windows', 'quota_concurrency_leases'])
      await enableTenantIsolation(runner, table, role);

    await runner.query(`
      CREATE OR REPLACE FUNCTION quota_reserve_evaluations(
        p_tenant text, p_wanted bigint,
        p_minute_start timestamptz, p_minute_limit bigint,
        p_day_start timestamptz, p_day_limit bigint)
      RETURNS TABLE (granted bigint, minute_used bigint, day_used bigint) AS $$
      #variable_conflict use_column
      DECLARE
        v_minute bigint;
        v_day bigint;
        v_granted bigint;
        v_new_windows int;
      BEGIN
        INSERT INTO quota_usage_windows (tenant_id, window_kind, window_start, used)
          VALUES (p_tenant, 'minute', p_minute_start, 0), (p_tenant, 'day', p_day_start, 0)
          ON CONFLICT DO NOTHING;
        GET DIAGNOSTICS v_new_windows = ROW_COUNT;
        IF v_new_windows > 0 THEN
          -- A new window began: forget old ones (an hour of minutes, five weeks of days).
          DELETE FROM quota_usage_windows w WHERE w.tenant_id = p_tenant AND (
            (w.window_kind = 'minute' AND w.window_start < p_minute_start - interval '1 hour') OR
            (w.window_kind = 'day' AND w.window_start < p_day_start - interval '35 days'));
        END IF;
        -- Row locks in a fixed order (minute, then day): concurrent reservations queue, never deadlock.
        SELECT w.used INTO v_minute FROM quota_usage_windows w
          WHERE w.tenant_id = p_tenant AND w.window_kind = 'minute' AND w.window_start = p_minute_start FOR UPDATE;
        SELECT w.used INTO v_day FROM quota_usage_windows w
          WHERE w.tenant_id = p_tenant AND w.window_kind = 'day' AND w.window_start = p_day_start FOR UPDATE;
        v_granted := GREATEST(0, LEAST(p_wanted,
          COALESCE(p_minute_limit - v_minute, p_wanted), COALESCE(p_day_limit - v_day, p_wanted)));
        IF v_granted > 0 THEN
          UPDATE quota_usage_windows w SET used = w.used + v_granted
            WHERE w.tenant_id = p_tenant AND ((w.window_kind = 'minute' AND w.window_start = p_minute_start)
              OR (w.window_kind = 'day' AND w.window_start = p_day_start));
        END IF;
        RETURN QUERY SELECT v_granted, v_minute + v_granted, v_day + v_granted;
      END $$ LANGUAGE plpgsql`);

    await runner.query(`
      CREATE OR REPLACE FUNCTION quota_lease_slots(
        p_tenant text, p_replica text, p_wanted int, p_in_use int, p_limit int, p_ttl_ms int)
      RETURNS TABLE (slots int, others int) AS $$
      #variable_conflict use_column
      DECLARE
        v_others int;
        v_granted int;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('arbiter:quota-lease:' || p_tenant));
        DELETE FROM quota_concurrency_leases l WHERE l.tenant_id = p_tenant AND l.expires_at <= now();
        SELECT COALESCE(sum(l.slots), 0) INTO v_others FROM quota_concurrency_leases l
          WHERE l.tenant_id = p_tenant AND l.replica_id <> p_replica;
        v_granted := CASE WHEN p_limit IS NULL THEN p_wanted
                          ELSE GREATEST(0, LEAST(p_wanted, p_limit - v_others)) END;
        IF v_granted = 0 AND p_in_use = 0 THEN
          DELETE FROM quota_concurrency_leases l WHERE l.tenant_id = p_tenant AND l.replica_id = p_replica;
        ELSE
          INSERT INTO quota_concurrency_leases AS l (tenant_id, replica_id, slots, in_use, expires_at)
            VALUES (p_tenant, p_replica, v_granted, p_in_use, now() + p_ttl_ms * interval '1 millisecond')
            ON CONFLICT (tenant_id, replica_id) DO UPDATE
              SET slots = EXCLUDED.slots, in_use = EXCLUDED.in_use, expires_at = EXCLUDED.expires_at;
        END IF;
        RETURN QUERY SELECT v_granted, v_others;
      END $$ LANGUAGE plpgsql`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP FUNCTION IF EXISTS quota_lease_slots');
    await runner.query('DROP FUNCTION IF EXISTS quota_reserve_evaluations');
    await runner.query('DROP TABLE IF EXISTS quota_concurrency_leases');
    await runner.query('DROP TABLE IF EXISTS quota_usage_windows');
    await runner.query('DROP TABLE IF EXISTS tenant_quotas');
  }
}
