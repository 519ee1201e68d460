import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signing-key rotation coordinated through the database: a rotated-in key is stored with
 * `activates_at` in the future (published in the JWKS, not yet signing) and the key it replaces gets
 * `retired_at` = that same instant, so every replica switches at one time the database decided.
 * `activates_at` NULL means active from `created_at` (keys stored before this migration).
 */
export class SigningKeyActivation1732060000300 implements MigrationInterface {
  name = 'SigningKeyActivation1732060000300';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE auth_signing_keys ADD COLUMN activates_at timestamptz`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE auth_signing_keys DROP COLUMN IF EXISTS activates_at`);
  }
}
