import type { Database } from '@arbiter/platform';
import { Injectable } from '@nestjs/common';
import type { LicenseAlg, LicensePublicJwk } from '@arbiter/licensing';
import type { EntityManager } from 'typeorm';
import type { UsageBatch } from '../usage-batch';

export interface RevocationRow {
  sequence: string;
  license_id: string;
  revoked_at: Date;
  reason: string;
  grace_deadline: Date;
}

export interface SigningKeyRow {
  kid: string;
  alg: LicenseAlg;
  public_jwk: LicensePublicJwk;
  private_pem: string;
  is_active: boolean;
  created_at: Date;
  retired_at: Date | null;
}

export interface UsageMetric {
  licenseKey: string;
  actionType: string;
  isValid: boolean;
  /** When (epoch milliseconds). */
  recordedAtMs: number;
}

export interface ApprovalRow {
  id: string;
  assembly_name: string;
  version: string;
  sha256_hash: string;
  public_key_token: string | null;
  approval_scope: 'Global' | 'License';
  license_id: string | null;
  source: string;
  approved_at: Date;
}

/** `license_revocations`: one row per revoked license, numbered by `sequence` (the snapshot's). */
@Injectable()
export class RevocationRepository {
  /** Records the revocation once (a second revoke keeps the first row and deadline). */
  async record(
    m: EntityManager,
    licenseId: string,
    reason: string,
    graceHours: number,
  ): Promise<RevocationRow> {
    await m.query(
      `INSERT INTO license_revocations (license_id, reason, grace_deadline)
       VALUES ($1, $2, now() + make_interval(hours => $3)) ON CONFLICT (license_id) DO NOTHING`,
      [licenseId, reason, graceHours],
    );
    const rows: RevocationRow[] = await m.query(`SELECT * FROM license_revocations WHERE license_id = $1`, [
      licenseId,
    ]);
    return rows[0];
  }

  all(m: EntityManager): Promise<RevocationRow[]> {
    return m.query(`SELECT * FROM license_revocations ORDER BY sequence`);
  }
}

/** `license_usage_metrics`: written in batches by the usage recorder. */
@Injectable()
export class UsageMetricRepository {
  /**
   * A batch of metrics, its columns as array literals (`UsageBatch`): one prepared statement in autocommit
   * (`Database.preparedQuery`; the table is service-wide, no row-level security), one round trip instead of
   * a transaction's four (begin, role and tenant settings, insert, commit) on the loop that serves validate.
   */
  async insertMany(db: Database, batch: UsageBatch): Promise<void> {
    if (!batch.count) return;
    const c = batch.columns();
    await db.preparedQuery(
      'license-usage-insert',
      `INSERT INTO license_usage_metrics (license_key, action_type, is_valid, recorded_at)
       SELECT k, a, v, to_timestamp(t / 1000)
         FROM unnest($1::text[], $2::text[], $3::boolean[], $4::float8[]) AS u(k, a, v, t)`,
      [c.licenseKeys, c.actionTypes, c.isValid, c.recordedAtMs],
    );
  }

  async count(m: EntityManager, licenseKey: string): Promise<number> {
    const rows: { n: string }[] = await m.query(
      `SELECT count(*) AS n FROM license_usage_metrics WHERE license_key = $1`,
      [licenseKey],
    );
    return Number(rows[0].n);
  }
}

/** `license_signing_keys`: every key the server signs or signed with; one active per algorithm. */
@Injectable()
export class LicenseSigningKeyRepository {
  async active(m: EntityManager, alg: LicenseAlg): Promise<SigningKeyRow | undefined> {
    const rows: SigningKeyRow[] = await m.query(
      `SELECT * FROM license_signing_keys WHERE is_active AND alg = $1`,
      [alg],
    );
    return rows[0];
  }

  all(m: EntityManager): Promise<SigningKeyRow[]> {
    return m.query(`SELECT * FROM license_signing_keys ORDER BY created_at DESC`);
  }

  /** Retires the active key of the row's algorithm (if any) and makes the given one active. */
  async activate(
    m: EntityManager,
    row: Pick<SigningKeyRow, 'kid' | 'alg' | 'public_jwk' | 'private_pem'>,
  ): Promise<void> {
    await m.query(
      `UPDATE license_signing_keys SET is_active = false, retired_at = now() WHERE is_active AND alg = $1`,
      [row.alg],
    );
    await m.query(
      `INSERT INTO license_signing_keys (kid, alg, public_jwk, private_pem, is_active) VALUES ($1, $2, $3, $4, true)`,
      [row.kid, row.alg, JSON.stringify(row.public_jwk), row.private_pem],
    );
  }

  /** A transaction-scoped advisory lock: true for the one transaction that gets it, false for the others. */
  async tryLock(m: EntityManager, name: string): Promise<boolean> {
    const rows: { locked: boolean }[] = await m.query(
      `SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked`,
      [name],
    );
    return rows[0].locked === true;
  }

  /** Waits for the transaction-scoped advisory lock. */
  async lock(m: EntityManager, name: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [name]);
  }

  /**
   * The database's clock and the next value of the counter every signed document carries (one clock and
   * one counter for every replica; the counter never goes back).
   */
  async clock(m: EntityManager): Promise<{ now: Date; counter: number }> {
    const rows: { now: Date; n: string }[] = await m.query(
      `SELECT now() AS now, nextval('license_counter') AS n`,
    );
    return { now: new Date(rows[0].now), counter: Number(rows[0].n) };
  }
}

/** `license_assembly_approvals`: approved assembly hashes, globally or for one license. */
@Injectable()
export class AssemblyApprovalRepository {
  async upsert(m: EntityManager, row: Omit<ApprovalRow, 'approved_at'>): Promise<ApprovalRow> {
    const rows: ApprovalRow[] = await m.query(
      `INSERT INTO license_assembly_approvals (id, assembly_name, version, sha256_hash, public_key_token,
                                               approval_scope, license_id, source)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (sha256_hash, coalesce(license_id::text, '')) DO UPDATE
         SET assembly_name = EXCLUDED.assembly_name, version = EXCLUDED.version,
             public_key_token = EXCLUDED.public_key_token, source = EXCLUDED.source, approved_at = now()
       RETURNING *`,
      [
        row.id,
        row.assembly_name,
        row.version,
        row.sha256_hash,
        row.public_key_token,
        row.approval_scope,
        row.license_id,
        row.source,
      ],
    );
    return rows[0];
  }

  /** The hashes among `hashes` approved globally or for the license. */
  async approved(m: EntityManager, licenseId: string, hashes: string[]): Promise<Set<string>> {
    const rows: { sha256_hash: string }[] = await m.query(
      `SELECT DISTINCT sha256_hash FROM license_assembly_approvals
        WHERE sha256_hash = ANY($1::text[]) AND (license_id IS NULL OR license_id = $2)`,
      [hashes, licenseId],
    );
    return new Set(rows.map((r) => r.sha256_hash));
  }
}
