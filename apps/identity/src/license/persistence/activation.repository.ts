import { Database } from '@arbiter/platform';
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

/** What a heartbeat that spent its nonce reads for the answer. */
export interface HeartbeatTarget {
  proof_id: string;
  license_id: string;
  machine_fingerprint: string;
  is_revoked: boolean;
  grace_deadline: Date | null;
  server_time: Date;
  counter: string;
}

/** One heartbeat's write: the nonce presented (its hash), what it must belong to, the next nonce's hash. */
export interface HeartbeatSpend {
  nonceHash: string;
  proofId: string;
  licenseId: string;
  fingerprint: string;
  nextHash: string;
}

/** What a heartbeat's write did: spent (the answer's data), or refused as another proof's nonce. */
export type HeartbeatOutcome = HeartbeatTarget | 'mismatch';

/**
 * `license_activations` (one per license and machine) and `license_nonces` (single-use heartbeat nonces:
 * a row per nonce not yet spent; spending deletes it).
 */
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
   * The heartbeat write of a batch of heartbeats in one autocommit statement (one round trip, no
   * transaction around it, prepared once per pooled connection: planning this CTE took longer than running
   * it). The inputs travel as arrays (`unnest`); their nonce hashes must be distinct (`HeartbeatWriter`
   * makes them so). For each input the statement spends the nonce (deletes it) only when it belongs to the
   * proof, license and machine named, stores the next nonce's hash, marks the activation's last heartbeat,
   * and reads what the answer carries (revocation, grace deadline, the database's time and a counter value
   * of its own: `nextval` per row). Of any number of concurrent statements naming the same nonce exactly
   * one deletes the row (the others wait for its commit, then find none).
   *
   * Answers by nonce hash (never by activation: two inputs may name the same activation): a
   * `HeartbeatTarget` for a nonce spent, `'mismatch'` for a nonce that exists but belongs to another proof,
   * license or machine (it stays unspent); an input absent from the map named an unknown or spent nonce.
   *
   * The statement's own transaction commits asynchronously (`synchronous_commit` off for it alone): the
   * answers do not wait for the WAL flush, which under load is what bounds a commit per call. The write
   * stays atomic (all of it or none); what a PostgreSQL crash can lose is the last heartbeats' fraction of
   * a second: their spent nonces come back unspent and their new nonces are gone, so such a runtime's next
   * heartbeat is refused (409) and it re-activates. A license revocation is not written here.
   */
  async heartbeats(db: Database, spends: readonly HeartbeatSpend[]): Promise<Map<string, HeartbeatOutcome>> {
    const rows = await db.preparedQuery<HeartbeatTarget & { nonce_hash: string; mismatch: boolean }>(
      'license-heartbeats',
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::text[], $5::text[])
                    AS i(nonce_hash, proof_id, license_id, fingerprint, next_hash)),
       spent AS (
         DELETE FROM license_nonces n USING input i, license_activations a
          WHERE n.nonce_hash = i.nonce_hash AND a.id = n.activation_id
            AND a.proof_id = i.proof_id AND a.license_id = i.license_id AND a.machine_fingerprint = i.fingerprint
          RETURNING n.nonce_hash, n.activation_id, i.next_hash, a.proof_id, a.license_id, a.machine_fingerprint),
       issued AS (
         INSERT INTO license_nonces (nonce_hash, activation_id) SELECT next_hash, activation_id FROM spent),
       touched AS (
         UPDATE license_activations a SET last_heartbeat_at = now()
           FROM (SELECT DISTINCT activation_id FROM spent) s WHERE a.id = s.activation_id)
       SELECT s.nonce_hash, false AS mismatch, s.proof_id, s.license_id, s.machine_fingerprint, k.is_revoked,
              r.grace_deadline, now() AS server_time, nextval('license_counter') AS counter,
              set_config('synchronous_commit', 'off', true) AS commit_mode
         FROM spent s JOIN license_keys k ON k.id = s.license_id
         LEFT JOIN license_revocations r ON r.license_id = k.id
       UNION ALL
       SELECT i.nonce_hash, true, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
         FROM input i JOIN license_nonces n ON n.nonce_hash = i.nonce_hash
         JOIN license_activations a ON a.id = n.activation_id
        WHERE (a.proof_id, a.license_id, a.machine_fingerprint) IS DISTINCT FROM (i.proof_id, i.license_id, i.fingerprint)`,
      [
        spends.map((s) => s.nonceHash),
        spends.map((s) => s.proofId),
        spends.map((s) => s.licenseId),
        spends.map((s) => s.fingerprint),
        spends.map((s) => s.nextHash),
      ],
    );
    const outcomes = new Map<string, HeartbeatOutcome>();
    for (const row of rows) outcomes.set(row.nonce_hash, row.mismatch ? 'mismatch' : row);
    return outcomes;
  }

  /**
   * Whether the license is activated on the machine (any machine under `ProjectOnly`): validate's read (on a
   * cache miss and each refresh), one prepared statement in autocommit (service-wide tables, no row-level
   * security) instead of a transaction's four round trips.
   */
  async validation(
    db: Database,
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
    const rows = await db.preparedQuery<{
      tier: string;
      allowed_features: string[];
      expires_at: Date;
      is_revoked: boolean;
      activated: boolean;
    }>(
      'license-validation',
      `SELECT k.tier, k.allowed_features, k.expires_at, k.is_revoked,
              EXISTS (SELECT 1 FROM license_activations a
                       WHERE a.license_id = k.id AND ($2::text IS NULL OR a.machine_fingerprint = $2)) AS activated
         FROM license_keys k WHERE k.license_key = $1`,
      [licenseKey, fingerprint],
    );
    return rows[0];
  }
}
