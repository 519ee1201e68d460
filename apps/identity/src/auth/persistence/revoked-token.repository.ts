import type { RevocationEntry } from '@arbiter/auth';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** `auth_revoked_tokens` (service-wide): the denylist of access-token ids until they expire. */
@Injectable()
export class RevokedTokenRepository {
  /** Revoked tokens that have not expired yet (of one tenant, or all), soonest expiry first. */
  async listUnexpired(m: EntityManager, tenantId?: string): Promise<RevocationEntry[]> {
    const rows: { jti: string; expires_at: Date }[] = await m.query(
      `SELECT jti, expires_at FROM auth_revoked_tokens
        WHERE expires_at > now() AND ($1::text IS NULL OR tenant_id = $1) ORDER BY expires_at`,
      [tenantId ?? null],
    );
    return rows.map((r) => ({ jti: r.jti, expiresAt: new Date(r.expires_at).toISOString() }));
  }

  /** Records a revocation; a token revoked twice keeps its first record. */
  async insert(m: EntityManager, entry: RevocationEntry, tenantId: string, reason: string): Promise<void> {
    await m.query(
      `INSERT INTO auth_revoked_tokens (jti, tenant_id, expires_at, reason) VALUES ($1, $2, $3, $4) ON CONFLICT (jti) DO NOTHING`,
      [entry.jti, tenantId, entry.expiresAt, reason],
    );
  }
}
