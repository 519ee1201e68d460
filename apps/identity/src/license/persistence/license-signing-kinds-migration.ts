import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two kinds of license signing key (see `@arbiter/licensing` keys.ts): `PS256` (RSA-2048 PSS) signs what
 * runtimes verify again and again (activation proofs, license records, revocation snapshots), `EdDSA`
 * (Ed25519) signs per-call heartbeat answers. One active key per kind (was: one active key); the Ed25519
 * keys of before stay (the active one keeps signing heartbeat answers, all stay published, so proofs they
 * signed keep verifying). The PS256 key is created at the next startup, like the first key ever. And
 * heartbeat nonces are spent by deleting them (one statement per heartbeat): `used_at` goes.
 */
export class LicenseSigningKinds1732060002500 implements MigrationInterface {
  name = 'LicenseSigningKinds1732060002500';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX IF EXISTS ux_license_signing_active`);
    await runner.query(
      `CREATE UNIQUE INDEX ux_license_signing_active_alg ON license_signing_keys (alg) WHERE is_active`,
    );
    await runner.query(
      `ALTER TABLE license_signing_keys ADD CONSTRAINT ck_license_signing_alg CHECK (alg IN ('PS256', 'EdDSA'))`,
    );
    // a heartbeat now spends a nonce by deleting its row: the nonces spent before (marked used_at) go, or
    // they would be spendable again
    await runner.query(`DELETE FROM license_nonces WHERE used_at IS NOT NULL`);
    await runner.query(`ALTER TABLE license_nonces DROP COLUMN used_at`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE license_nonces ADD COLUMN used_at timestamptz`);
    await runner.query(`ALTER TABLE license_signing_keys DROP CONSTRAINT IF EXISTS ck_license_signing_alg`);
    await runner.query(`DROP INDEX IF EXISTS ux_license_signing_active_alg`);
    await runner.query(`DELETE FROM license_signing_keys WHERE alg <> 'EdDSA'`);
    await runner.query(
      `CREATE UNIQUE INDEX ux_license_signing_active ON license_signing_keys (is_active) WHERE is_active`,
    );
  }
}
