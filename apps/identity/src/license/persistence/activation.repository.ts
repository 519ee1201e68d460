import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

export interface ActivationRow {
  id: string;
  license_id: string;
  machine_fingerprint: string;
  environment: string;
  product_version: string;
  manifest_hash: string | null;
  proof_id: string;
  signing_key_id: string;
  activated_at: Date;
  last_heartbeat_at: Date | null;
}

/** A spent nonce's activation, with what the heartbeat needs of its license. */
export interface HeartbeatTarget extends ActivationRow {
  is_revoked: boolean;
  grace_deadline: Date | null;
}

/** `license_activations` (one per license and machine) and `license_nonces` (single-use heartbeat nonces). */
@Injectable()
export class ActivationRepository {
  async byMachine(
    m: EntityManager,
    licenseId: string,
    fingerprint: string,
  ): Promise<ActivationRow | undefined> {
    const rows: ActivationRow[] = await m.query(
      `SELECT * FROM license_activations WHERE license_id = $1 AND machine_fingerprint = $2`,
      [licenseId, fingerprint],
    );
    return rows[0];
  }

  async count(m: EntityManager, licenseId: string): Promise<number> {
    const rows: { n: string }[] = await m.query(
      `SELECT count(*) AS n FROM license_activations WHERE license_id = $1`,
      [licenseId],
    );
    return Number(rows[0].n);
  }

  async insert(
    m: EntityManager,
    row: Omit<ActivationRow, 'activated_at' | 'last_heartbeat_at'>,
  ): Promise<void> {
    await m.query(
      `INSERT INTO license_activations (id, license_id, machine_fingerprint, environment, product_version,
                                        manifest_hash, proof_id, signing_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        row.id,
        row.license_id,
        row.machine_fingerprint,
        row.environment,
        row.product_version,
        row.manifest_hash,
        row.proof_id,
        row.signing_key_id,
      ],
    );
  }

  /** Re-activation of a machine: a new proof replaces the old one (and its nonces). */
  async reissue(
    m: EntityManager,
    id: string,
    row: Pick<ActivationRow, 'product_version' | 'manifest_hash' | 'proof_id' | 'signing_key_id'>,
  ): Promise<void> {
    await m.query(
      `UPDATE license_activations SET product_version = $2, manifest_hash = $3, proof_id = $4,
              signing_key_id = $5, activated_at = now() WHERE id = $1`,
      [id, row.product_version, row.manifest_hash, row.proof_id, row.signing_key_id],
    );
    await m.query(`DELETE FROM license_nonces WHERE activation_id = $1`, [id]);
  }

  async issueNonce(m: EntityManager, activationId: string, nonceHash: string): Promise<void> {
    await m.query(`INSERT INTO license_nonces (nonce_hash, activation_id) VALUES ($1, $2)`, [
      nonceHash,
      activationId,
    ]);
  }

  /**
   * Spends a nonce: exactly one of any number of concurrent calls with the same nonce gets the row (the
   * others wait for its commit, then see `used_at` set). Undefined for an unknown or spent nonce.
   */
  async spendNonce(m: EntityManager, nonceHash: string): Promise<HeartbeatTarget | undefined> {
    const rows: HeartbeatTarget[] = await m.query(
      `WITH spent AS (
         UPDATE license_nonces SET used_at = now()
          WHERE nonce_hash = $1 AND used_at IS NULL
          RETURNING activation_id)
       SELECT a.*, k.is_revoked, r.grace_deadline
         FROM spent s JOIN license_activations a ON a.id = s.activation_id
         JOIN license_keys k ON k.id = a.license_id
         LEFT JOIN license_revocations r ON r.license_id = k.id`,
      [nonceHash],
    );
    return rows[0];
  }

  async touch(m: EntityManager, activationId: string): Promise<void> {
    await m.query(`UPDATE license_activations SET last_heartbeat_at = now() WHERE id = $1`, [activationId]);
  }

  /** Whether the license is activated on the machine (any machine under `ProjectOnly`). */
  async validation(
    m: EntityManager,
    licenseKey: string,
    fingerprint: string | null,
  ): Promise<
    | {
        tier: string;
        allowed_features: string[];
        expires_at: Date;
        is_revoked: boolean;
        activated: boolean;
      }
    | undefined
  > {
    const rows = await m.query(
      `SELECT k.tier, k.allowed_features, k.expires_at, k.is_revoked,
              EXISTS (SELECT 1 FROM license_activations a
                       WHERE a.license_id = k.id AND ($2::text IS NULL OR a.machine_fingerprint = $2)) AS activated
         FROM license_keys k WHERE k.license_key = $1`,
      [licenseKey, fingerprint],
    );
    return rows[0];
  }
}
