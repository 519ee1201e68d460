import { PRE_SIGNING_HEAD_KEY_ID } from '@arbiter/audit-chain';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signed audit chain heads (issue 27, item 2): the head of each tenant's chain carries the time it was
 * signed, the key id and an RSA signature over `{ type: 'audit-head', tenantId, seq, hash, signedAt,
 * keyId }`, written in the transaction of every append. Verification compares the entries with the
 * signed head, so deleting the newest entries and rewinding the head is detected. The columns are
 * nullable only so that existing rows stay readable. A head written before this migration is marked
 * (`PRE_SIGNING_HEAD_KEY_ID`) and signed by the next append; any other head without a signature fails
 * verification and is never extended (see the control-plane README, "What the audit proves").
 */
export class SignedAuditHeads1732060001000 implements MigrationInterface {
  name = 'SignedAuditHeads1732060001000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE rule_set_audit_heads ADD COLUMN IF NOT EXISTS signed_at timestamptz NULL`,
    );
    await runner.query(`ALTER TABLE rule_set_audit_heads ADD COLUMN IF NOT EXISTS key_id text NULL`);
    await runner.query(`ALTER TABLE rule_set_audit_heads ADD COLUMN IF NOT EXISTS signature text NULL`);
    // heads written before this migration: marked, so that the next append signs them instead of refusing
    // (an unsigned head without the mark had its signature removed, and is never extended)
    await runner.query(
      `UPDATE rule_set_audit_heads SET key_id = '${PRE_SIGNING_HEAD_KEY_ID}' WHERE signature IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE rule_set_audit_heads DROP COLUMN IF EXISTS signature`);
    await runner.query(`ALTER TABLE rule_set_audit_heads DROP COLUMN IF EXISTS key_id`);
    await runner.query(`ALTER TABLE rule_set_audit_heads DROP COLUMN IF EXISTS signed_at`);
  }
}
