import { Injectable } from '@nestjs/common';
import type { JWK } from 'jose';
import type { EntityManager } from 'typeorm';

/** A row of `auth_signing_keys`: the public JWK always, the private PEM only for generated keys. */
export interface SigningKeyRow {
  kid: string;
  alg: string;
  tenant_id: string | null;
  public_jwk: JWK;
  private_pem: string | null;
  source: string;
}

/** The public side of a key, as verification and the JWKS need it. */
export type PublicKeyRow = Pick<SigningKeyRow, 'kid' | 'alg' | 'tenant_id' | 'public_jwk'>;

/** A generated service key that signs now or will: `activatesInMs` > 0 while it is only published. */
export interface GeneratedKeyState {
  kid: string;
  private_pem: string;
  /** Milliseconds (database clock) until it starts signing; 0 or less: it signs now. */
  activatesInMs: number;
  /** Milliseconds (database clock) until another key takes over; null: none is scheduled. */
  retiresInMs: number | null;
}

/** How long a retired key stays published and verifiable after its retirement. */
export interface RetirementWindow {
  publishSeconds: number;
  verifySeconds: number;
}

/** The lock every writer of the service's generated key takes: one rotation at a time, cluster-wide. */
const ROTATION_LOCK = 'arbiter:auth_signing_keys:rotation';

const NOW_SIGNING = `(activates_at IS NULL OR activates_at <= now()) AND (retired_at IS NULL OR retired_at > now())`;

/**
 * `auth_signing_keys` (service-wide): every key identity signs or signed with. A key signs from
 * `activates_at` (NULL: from its creation) until `retired_at`, is published until `publish_until`
 * and usable for verification until `verify_until`.
 */
@Injectable()
export class SigningKeyRepository {
  /** Waits for the rotation lock (transaction-scoped: released at commit or rollback). */
  async lockRotation(m: EntityManager): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [ROTATION_LOCK]);
  }

  /** Stores a key, or brings a stored one back into service (not retired any more, signing now). */
  async upsert(
    m: EntityManager,
    row: Omit<SigningKeyRow, 'tenant_id'> & { tenant_id?: string | null },
  ): Promise<void> {
    await m.query(
      `INSERT INTO auth_signing_keys (kid, alg, tenant_id, public_jwk, private_pem, source)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (kid) DO UPDATE
         SET retired_at = NULL, publish_until = NULL, verify_until = NULL, activates_at = NULL`,
      [row.kid, row.alg, row.tenant_id ?? null, JSON.stringify(row.public_jwk), row.private_pem, row.source],
    );
  }

  /** Retires the other current keys of the same tenant (or of the service when `tenantId` is null) now. */
  async retireOthers(
    m: EntityManager,
    kid: string,
    tenantId: string | null,
    window: RetirementWindow,
  ): Promise<void> {
    await m.query(
      `UPDATE auth_signing_keys
          SET retired_at = now(),
              publish_until = now() + make_interval(secs => $2),
              verify_until = now() + make_interval(secs => $3)
        WHERE kid <> $1 AND (retired_at IS NULL OR retired_at > now()) AND tenant_id IS NOT DISTINCT FROM $4`,
      [kid, window.publishSeconds, window.verifySeconds, tenantId],
    );
  }

  /**
   * The generated RS256 service keys that sign now or are scheduled to (newest activation first):
   * at most the active one and one pending one.
   */
  generatedState(m: EntityManager): Promise<GeneratedKeyState[]> {
    return m
      .query(
        `SELECT kid, private_pem,
                COALESCE(EXTRACT(EPOCH FROM (activates_at - now())) * 1000, 0)::float8 AS activates_in_ms,
                (EXTRACT(EPOCH FROM (retired_at - now())) * 1000)::float8 AS retires_in_ms
           FROM auth_signing_keys
          WHERE tenant_id IS NULL AND source = 'generated' AND alg = 'RS256' AND private_pem IS NOT NULL
            AND (retired_at IS NULL OR retired_at > now())
          ORDER BY COALESCE(activates_at, created_at) DESC`,
      )
      .then(
        (
          rows: Array<{
            kid: string;
            private_pem: string;
            activates_in_ms: number;
            retires_in_ms: number | null;
          }>,
        ) =>
          rows.map((r) => ({
            kid: r.kid,
            private_pem: r.private_pem,
            activatesInMs: Number(r.activates_in_ms),
            retiresInMs: r.retires_in_ms === null ? null : Number(r.retires_in_ms),
          })),
      );
  }

  /** The service key (any source) that signs now, if any. */
  async currentServiceKid(m: EntityManager): Promise<string | undefined> {
    const rows: Array<{ kid: string }> = await m.query(
      `SELECT kid FROM auth_signing_keys WHERE tenant_id IS NULL AND ${NOW_SIGNING}
        ORDER BY COALESCE(activates_at, created_at) DESC LIMIT 1`,
    );
    return rows[0]?.kid;
  }

  /**
   * Schedules `row` (a generated service key) to take over signing in `delaySeconds`: stored now (so it
   * is published at once), and every service key that signs now retires at that same instant, published
   * and verifiable for `window` after it. Call with the rotation lock held.
   */
  async schedule(
    m: EntityManager,
    row: Omit<SigningKeyRow, 'tenant_id'>,
    delaySeconds: number,
    window: RetirementWindow,
  ): Promise<Date> {
    const [{ at }] = (await m.query(`SELECT now() + make_interval(secs => $1) AS at`, [
      delaySeconds,
    ])) as Array<{
      at: Date;
    }>;
    await m.query(
      `UPDATE auth_signing_keys
          SET retired_at = $1,
              publish_until = $1::timestamptz + make_interval(secs => $2),
              verify_until = $1::timestamptz + make_interval(secs => $3)
        WHERE tenant_id IS NULL AND (retired_at IS NULL OR retired_at > $1)`,
      [at, window.publishSeconds, window.verifySeconds],
    );
    await m.query(
      `INSERT INTO auth_signing_keys (kid, alg, tenant_id, public_jwk, private_pem, source, activates_at)
       VALUES ($1, $2, NULL, $3, $4, $5, $6)`,
      [row.kid, row.alg, JSON.stringify(row.public_jwk), row.private_pem, row.source, at],
    );
    return new Date(at);
  }

  /** A service key that is published but not signing yet (a rotation under way). */
  async pendingServiceKey(m: EntityManager): Promise<{ kid: string; activates_at: Date } | undefined> {
    const rows: Array<{ kid: string; activates_at: Date }> = await m.query(
      `SELECT kid, activates_at FROM auth_signing_keys
        WHERE tenant_id IS NULL AND activates_at > now() AND retired_at IS NULL
        ORDER BY activates_at DESC LIMIT 1`,
    );
    return rows[0];
  }

  /** Keys that may still verify a token: current, pending, and retired ones within their window. */
  verifiable(m: EntityManager): Promise<PublicKeyRow[]> {
    return m.query(
      `SELECT kid, alg, tenant_id, public_jwk FROM auth_signing_keys WHERE verify_until IS NULL OR verify_until > now()`,
    );
  }

  /**
   * Keys the JWKS publishes: pending ones (before they sign), current ones, and retired ones whose
   * last token has not expired, newest first. Asymmetric only: an HMAC secret is never published.
   */
  published(m: EntityManager): Promise<PublicKeyRow[]> {
    return m.query(
      `SELECT kid, alg, tenant_id, public_jwk FROM auth_signing_keys
        WHERE alg NOT LIKE 'HS%' AND (retired_at IS NULL OR publish_until > now())
        ORDER BY COALESCE(activates_at, created_at) DESC`,
    );
  }
}
