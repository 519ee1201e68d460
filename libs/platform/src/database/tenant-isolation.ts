import type { MigrationInterface, QueryRunner } from 'typeorm';

export const DEFAULT_APPLICATION_ROLE = 'arbiter_app';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertIdentifier(name: string, what = 'identifier'): string {
  if (!IDENTIFIER.test(name))
    throw new Error(`Invalid ${what} '${name}': use lowercase letters, digits and _`);
  return name;
}

/**
 * Creates the application role (no login, not a superuser, not the table owner) that every unit of
 * work `SET LOCAL ROLE`s to, so row-level security really applies. Idempotent and safe when several
 * services or replicas migrate at once (roles are cluster-wide).
 */
export async function ensureApplicationRole(runner: QueryRunner, role: string): Promise<void> {
  assertIdentifier(role, 'role name');
  await runner.query(`
    DO $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN
        BEGIN
          CREATE ROLE ${role} NOLOGIN NOSUPERUSER NOBYPASSRLS;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
      END IF;
      BEGIN
        EXECUTE format('GRANT ${role} TO %I', current_user);
      EXCEPTION WHEN OTHERS THEN NULL;
      END;
    END $$;`);
  await runner.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
}

/**
 * Row-level security on a tenant table: rows are visible and writable only when `tenant_id` equals
 * the transaction's `app.tenant_id`; `app.all_tenants = 'on'` (set only by the unit of work's
 * explicit cross-tenant mode, for administrators) lifts the read filter.
 */
export async function enableTenantIsolation(runner: QueryRunner, table: string, role: string): Promise<void> {
  assertIdentifier(table, 'table name');
  assertIdentifier(role, 'role name');
  await runner.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
  await runner.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
  await runner.query(`DROP POLICY IF EXISTS tenant_isolation ON ${table}`);
  await runner.query(`
    CREATE POLICY tenant_isolation ON ${table}
      USING (tenant_id = current_setting('app.tenant_id', true) OR current_setting('app.all_tenants', true) = 'on')
      WITH CHECK (tenant_id = current_setting('app.tenant_id', true))`);
  await grantTableAccess(runner, table, role);
}

/** Grants the application role plain DML on a (non-tenant) table and the sequences it uses. */
export async function grantTableAccess(runner: QueryRunner, table: string, role: string): Promise<void> {
  assertIdentifier(table, 'table name');
  await runner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO ${role}`);
  await runner.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
}

/**
 * The first migration of every service: the application role that units of work `SET ROLE` to.
 * `timestamp` keeps TypeORM's per-service ordering (the class is named `ApplicationRole<timestamp>`).
 */
export function applicationRoleMigration(
  timestamp: number,
  role: () => string,
): new () => MigrationInterface {
  const name = `ApplicationRole${timestamp}`;
  const migration = class implements MigrationInterface {
    name = name;
    async up(runner: QueryRunner): Promise<void> {
      await ensureApplicationRole(runner, role());
    }
    async down(): Promise<void> {
      // Roles are cluster-wide and may be shared with other services: never dropped here.
    }
  };
  Object.defineProperty(migration, 'name', { value: name });
  return migration;
}
