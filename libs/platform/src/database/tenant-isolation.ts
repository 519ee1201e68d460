import type { MigrationInterface, QueryRunner } from 'typeorm';

export const DEFAULT_APPLICATION_ROLE = 'arbiter_app';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertIdentifier(name: string, what = 'identifier'): string {
  if (!IDENTIFIER.test(name))
    throw new Error(`Invalid ${what} '${name}': use lowercase letters, digits and _`);
  return name;
}

/**
 * The role a cross-tenant read (`UnitOfWork` `acrossTenants`) runs as: `<application role>_all_tenants`,
 * no login, SELECT only, and the one role the `all_tenants_read` policy lets see every tenant's rows.
 * The application role is not a member of it: no statement run as the application role (no setting
 * it can change) lifts the tenant filter; only the login role (which the unit of work acts for) can
 * switch to it.
 */
export function allTenantsReaderRole(applicationRole: string): string {
  return assertIdentifier(`${applicationRole}_all_tenants`, 'cross-tenant reader role name');
}

async function ensureRole(runner: QueryRunner, role: string): Promise<void> {
  await runner.query(`
    DO $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN
        BEGIN
          CREATE ROLE ${role} NOLOGIN NOSUPERUSER NOBYPASSRLS;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
      END IF;
      IF current_user <> '${role}' THEN
        BEGIN
          EXECUTE format('GRANT ${role} TO %I', current_user);
        EXCEPTION WHEN OTHERS THEN NULL;
        END;
      END IF;
    END $$;`);
  await runner.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
}

/**
 * Creates the application role (no login, not a superuser, not the table owner) that every unit of
 * work `SET LOCAL ROLE`s to, so row-level security really applies, and its cross-tenant reader role
 * (`allTenantsReaderRole`). Idempotent and safe when several services or replicas migrate at once
 * (roles are cluster-wide).
 */
export async function ensureApplicationRole(runner: QueryRunner, role: string): Promise<void> {
  assertIdentifier(role, 'role name');
  await ensureRole(runner, role);
  await ensureRole(runner, allTenantsReaderRole(role));
}

/**
 * The tenant policies of a table: `tenant_isolation` (rows of the transaction's `app.tenant_id` only,
 * for reading and writing) and `all_tenants_read` (every row, SELECT only, for the cross-tenant reader
 * role alone), with the reader's SELECT grant.
 */
async function tenantPolicies(runner: QueryRunner, table: string, role: string): Promise<void> {
  const reader = allTenantsReaderRole(role);
  await runner.query(`DROP POLICY IF EXISTS tenant_isolation ON ${table}`);
  await runner.query(`
    CREATE POLICY tenant_isolation ON ${table}
      USING (tenant_id = current_setting('app.tenant_id', true))
      WITH CHECK (tenant_id = current_setting('app.tenant_id', true))`);
  await runner.query(`DROP POLICY IF EXISTS all_tenants_read ON ${table}`);
  await runner.query(`CREATE POLICY all_tenants_read ON ${table} FOR SELECT TO ${reader} USING (true)`);
  await runner.query(`GRANT SELECT ON ${table} TO ${reader}`);
}

/**
 * Moves a database migrated before the cross-tenant reader role existed (when a setting,
 * `app.all_tenants`, that the application role could set itself lifted the tenant filter) to the
 * reader role: every `tenant_isolation` policy of the schema is recreated without the setting, with
 * `all_tenants_read` beside it, and the reader may SELECT what the application role may. Idempotent.
 */
export async function separateCrossTenantReads(runner: QueryRunner, role: string): Promise<void> {
  assertIdentifier(role, 'role name');
  await ensureApplicationRole(runner, role);
  const policies: Array<{ tablename: string }> = await runner.query(
    `SELECT DISTINCT tablename FROM pg_policies
      WHERE schemaname = current_schema() AND policyname = 'tenant_isolation'`,
  );
  for (const { tablename } of policies) await tenantPolicies(runner, assertIdentifier(tablename), role);
  const readable: Array<{ table_name: string }> = await runner.query(
    `SELECT DISTINCT table_name FROM information_schema.role_table_grants
      WHERE grantee = $1 AND privilege_type = 'SELECT' AND table_schema = current_schema()`,
    [role],
  );
  const reader = allTenantsReaderRole(role);
  for (const { table_name } of readable) {
    await runner.query(`GRANT SELECT ON ${assertIdentifier(table_name)} TO ${reader}`);
  }
}

/**
 * The migration every service runs once to move an existing database to the cross-tenant reader role
 * (`separateCrossTenantReads`); on a new database it finds the policies already in that form.
 */
export function crossTenantReaderMigration(
  timestamp: number,
  role: () => string,
): new () => MigrationInterface {
  const name = `CrossTenantReader${timestamp}`;
  const migration = class implements MigrationInterface {
    name = name;
    async up(runner: QueryRunner): Promise<void> {
      await separateCrossTenantReads(runner, role());
    }
    async down(): Promise<void> {
      // The setting-based policy it replaced let the application role read every tenant: not restored.
    }
  };
  Object.defineProperty(migration, 'name', { value: name });
  return migration;
}

/**
 * Row-level security on a tenant table: rows are visible and writable only when `tenant_id` equals
 * the transaction's `app.tenant_id`; only the cross-tenant reader role (`allTenantsReaderRole`, the
 * unit of work's explicit cross-tenant mode, for administrators and background jobs) reads every
 * tenant's rows, and it cannot write.
 */
export async function enableTenantIsolation(runner: QueryRunner, table: string, role: string): Promise<void> {
  assertIdentifier(table, 'table name');
  assertIdentifier(role, 'role name');
  await runner.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
  await runner.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
  await tenantPolicies(runner, table, role);
  await grantTableAccess(runner, table, role);
}

/**
 * Grants the application role plain DML on a (non-tenant) table and the sequences it uses; the
 * cross-tenant reader role may read it.
 */
export async function grantTableAccess(runner: QueryRunner, table: string, role: string): Promise<void> {
  assertIdentifier(table, 'table name');
  await runner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO ${role}`);
  await runner.query(`GRANT SELECT ON ${table} TO ${allTenantsReaderRole(role)}`);
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
