import { enableTenantIsolation, grantTableAccess, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Token authentication: users, roles, refresh tokens (families), audit (tenant tables under RLS);
 * signing keys, revoked token ids and login throttling state (service-wide tables).
 */
export class TokenAuth1732060000100 implements MigrationInterface {
  name = 'TokenAuth1732060000100';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    const common = `
      creation_time timestamptz NOT NULL DEFAULT now(),
      last_modification_time timestamptz,
      is_deleted boolean NOT NULL DEFAULT false,
      deletion_time timestamptz`;
    await runner.query(`
      CREATE TABLE auth_users (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        user_name text NOT NULL,
        email text,
        display_name text,
        password_hash text NOT NULL,
        roles text[] NOT NULL DEFAULT '{}',
        is_active boolean NOT NULL DEFAULT true,
        ${common}
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX ux_auth_users_name ON auth_users (tenant_id, lower(user_name)) WHERE NOT is_deleted`,
    );
    await runner.query(`
      CREATE TABLE auth_roles (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        name text NOT NULL,
        description text,
        permissions text[] NOT NULL DEFAULT '{}',
        ${common}
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX ux_auth_roles_name ON auth_roles (tenant_id, lower(name)) WHERE NOT is_deleted`,
    );
    await runner.query(`
      CREATE TABLE auth_refresh_tokens (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        token_hash text NOT NULL UNIQUE,
        family_id uuid NOT NULL,
        user_id uuid NOT NULL,
        access_jti text NOT NULL,
        access_expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expired_date timestamptz NOT NULL,
        last_used_date timestamptz,
        revoked_date timestamptz,
        reason_revoked text,
        is_revoked boolean NOT NULL DEFAULT false,
        replaced_by uuid
      )`);
    await runner.query(`CREATE INDEX ix_auth_refresh_family ON auth_refresh_tokens (family_id)`);
    await runner.query(`
      CREATE TABLE auth_audit (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        event text NOT NULL,
        subject text,
        details jsonb NOT NULL DEFAULT '{}',
        occurred_at timestamptz NOT NULL DEFAULT now()
      )`);
    for (const table of ['auth_users', 'auth_roles', 'auth_refresh_tokens', 'auth_audit']) {
      await enableTenantIsolation(runner, table, role);
    }
    await runner.query(`
      CREATE TABLE auth_revoked_tokens (
        jti text PRIMARY KEY,
        tenant_id text,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NOT NULL DEFAULT now(),
        reason text
      )`);
    await runner.query(`CREATE INDEX ix_auth_revoked_expires ON auth_revoked_tokens (expires_at)`);
    await runner.query(`
      CREATE TABLE auth_signing_keys (
        kid text PRIMARY KEY,
        alg text NOT NULL,
        tenant_id text,
        public_jwk jsonb NOT NULL,
        private_pem text,
        source text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz,
        publish_until timestamptz,
        verify_until timestamptz
      )`);
    await runner.query(`
      CREATE TABLE auth_login_attempts (
        key text PRIMARY KEY,
        failures integer NOT NULL,
        locked_until timestamptz,
        last_failure timestamptz NOT NULL
      )`);
    for (const table of ['auth_revoked_tokens', 'auth_signing_keys', 'auth_login_attempts']) {
      await grantTableAccess(runner, table, role);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of [
      'auth_login_attempts',
      'auth_signing_keys',
      'auth_revoked_tokens',
      'auth_audit',
      'auth_refresh_tokens',
      'auth_roles',
      'auth_users',
    ]) {
      await runner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
