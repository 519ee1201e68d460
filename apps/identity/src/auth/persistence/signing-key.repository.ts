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

/**
 * `auth_signing_keys` (service-wide): every key identity signs or signed with. A retired key stays
 * published until `publish_until` and usable for verification until `verify_until`.
 */
@Injectable()
export class SigningKeyRepository {
  /** Stores a key, or brings a stored one back into service (not retired any more). */
  async upsert(
    m: EntityManager,
    row: Omit<SigningKeyRow, 'tenant_id'> & { tenant_id?: string | null },
  ): Promise<void> {
    await m.query(
      `INSERT INTO auth_signing_keys (kid, alg, tenant_id, public_jwk, private_pem, source)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (kid) DO UPDATE SET retired_at = NULL, publish_until = NULL, verify_until = NULL`,
      [row.kid, row.alg, row.tenant_id ?? null, JSON.stringify(row.public_jwk), row.private_pem, row.source],
    );
  }

  /** Retires the other current keys of the same tenant (or of the service when `tenantId` is null). */
  async retireOthers(
    m: EntityManager,
    kid: string,
    tenantId: string | null,
    window: { publishSeconds: number; verifySeconds: number },
  ): Promise<void> {
    await m.query(
      `UPDATE auth_signing_keys
          SET retired_at = now(),
              publish_until = now() + make_interval(secs => $2),
              verify_until = now() + make_interval(secs => $3)
        WHERE kid <> $1 AND retired_at IS NULL AND tenant_id IS NOT DISTINCT FROM $4`,
      [kid, window.publishSeconds, window.verifySeconds, tenantId],
    );
  }

  /** The newest current generated RS256 service key that still has its private half. */
  async currentGenerated(m: EntityManager): Promise<SigningKeyRow | undefined> {
    const rows: SigningKeyRow[] = await m.query(
      `SELECT * FROM auth_signing_keys WHERE tenant_id IS NULL AND retired_at IS NULL AND source = 'generated'
         AND alg = 'RS256' AND private_pem IS NOT NULL ORDER BY created_at DESC LIMIT 1`,
    );
    return rows[0];
  }

  /** Keys that may still verify a token: current ones and retired ones within their window. */
  verifiable(m: EntityManager): Promise<PublicKeyRow[]> {
    return m.query(
      `SELECT kid, alg, tenant_id, public_jwk FROM auth_signing_keys WHERE verify_until IS NULL OR verify_until > now()`,
    );
  }

  /** RSA keys the JWKS publishes: current ones and retired ones whose last token has not expired, newest first. */
  published(m: EntityManager): Promise<PublicKeyRow[]> {
    return m.query(
      `SELECT kid, alg, tenant_id, public_jwk FROM auth_signing_keys
        WHERE alg LIKE 'RS%' AND (retired_at IS NULL OR publish_until > now()) ORDER BY created_at DESC`,
    );
  }
}
