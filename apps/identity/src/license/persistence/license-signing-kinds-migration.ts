import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two kinds of license signing key (see `@arbiter/licensing` keys.ts): `PS256` (RSA-2048 PSS) signs what
 * runtimes verify again and again (activation proofs, license records, revocation snapshots), `EdDSA`
 * (Ed25519) signs per-call heartbeat answers. One active key per kind (was: one active key); the Ed25519
 * keys of before stay (the active one keeps signing heartbeat answers, all stay published, so proofs they
 * signed keep verifying). The PS256 key is created at the next startup, like the first key ever.
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
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE license_signing_keys DROP CONSTRAINT IF EXISTS ck_license_signing_alg`);
    await runner.query(`DROP INDEX IF EXISTS ux_license_signing_active_alg`);
    await runner.query(`DELETE FROM license_signing_keys WHERE alg <> 'EdDSA'`);
    await runner.query(
      `CREATE UNIQUE INDEX ux_license_signing_active ON license_signing_keys (is_active) WHERE is_active`,
    );
  }
}
