import { grantTableAccess, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The license server's tables (service-wide, no tenant: a license belongs to an organization, not to a
 * tenant of this deployment): keys, activations, heartbeat nonces, revocations, usage metrics, signing
 * keys, the assembly whitelist; and the sequence behind the monotonic counter every signed document carries.
 */
export class LicenseServer1732060000200 implements MigrationInterface {
  name = 'LicenseServer1732060000200';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await runner.query(`
      CREATE TABLE license_keys (
        id uuid PRIMARY KEY,
        license_key text NOT NULL UNIQUE,
        organization_id text NOT NULL,
        organization_name text NOT NULL,
        tier text NOT NULL CHECK (tier IN ('Free', 'Licensed', 'Enterprise')),
        valid_days integer NOT NULL,
        max_activations integer NOT NULL,
        allowed_features text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        is_revoked boolean NOT NULL DEFAULT false,
        revoked_at timestamptz,
        revoked_reason text
      )`);
    await runner.query(`
      CREATE TABLE license_activations (
        id uuid PRIMARY KEY,
        license_id uuid NOT NULL REFERENCES license_keys (id),
        machine_fingerprint text NOT NULL,
        environment text NOT NULL,
        product_version text NOT NULL,
        manifest_hash text,
        proof_id uuid NOT NULL UNIQUE,
        signing_key_id text NOT NULL,
        activated_at timestamptz NOT NULL DEFAULT now(),
        last_heartbeat_at timestamptz,
        UNIQUE (license_id, machine_fingerprint)
      )`);
    await runner.query(`
      CREATE TABLE license_nonces (
        nonce_hash text PRIMARY KEY,
        activation_id uuid NOT NULL REFERENCES license_activations (id) ON DELETE CASCADE,
        issued_at timestamptz NOT NULL DEFAULT now(),
        used_at timestamptz
      )`);
    await runner.query(`CREATE INDEX ix_license_nonces_activation ON license_nonces (activation_id)`);
    await runner.query(`
      CREATE TABLE license_revocations (
        sequence bigserial PRIMARY KEY,
        license_id uuid NOT NULL UNIQUE REFERENCES license_keys (id),
        revoked_at timestamptz NOT NULL DEFAULT now(),
        reason text NOT NULL,
        grace_deadline timestamptz NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE license_usage_metrics (
        id bigserial PRIMARY KEY,
        license_key text NOT NULL,
        action_type text NOT NULL,
        is_valid boolean NOT NULL,
        recorded_at timestamptz NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX ix_license_usage_key_time ON license_usage_metrics (license_key, recorded_at)`,
    );
    await runner.query(`
      CREATE TABLE license_signing_keys (
        kid text PRIMARY KEY,
        alg text NOT NULL,
        public_jwk jsonb NOT NULL,
        private_pem text NOT NULL,
        is_active boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz
      )`);
    // at most one active key: two replicas racing to create one cannot both win
    await runner.query(
      `CREATE UNIQUE INDEX ux_license_signing_active ON license_signing_keys (is_active) WHERE is_active`,
    );
    await runner.query(`
      CREATE TABLE license_assembly_approvals (
        id uuid PRIMARY KEY,
        assembly_name text NOT NULL,
        version text NOT NULL,
        sha256_hash text NOT NULL,
        public_key_token text,
        approval_scope text NOT NULL CHECK (approval_scope IN ('Global', 'License')),
        license_id uuid REFERENCES license_keys (id),
        source text NOT NULL,
        approved_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((approval_scope = 'Global') = (license_id IS NULL))
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX ux_license_assembly ON license_assembly_approvals (sha256_hash, coalesce(license_id::text, ''))`,
    );
    await runner.query(`CREATE SEQUENCE license_counter`);
    for (const table of [
      'license_keys',
      'license_activations',
      'license_nonces',
      'license_revocations',
      'license_usage_metrics',
      'license_signing_keys',
      'license_assembly_approvals',
    ]) {
      await grantTableAccess(runner, table, role);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP SEQUENCE IF EXISTS license_counter`);
    for (const table of [
      'license_assembly_approvals',
      'license_signing_keys',
      'license_usage_metrics',
      'license_revocations',
      'license_nonces',
      'license_activations',
      'license_keys',
    ]) {
      await runner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
