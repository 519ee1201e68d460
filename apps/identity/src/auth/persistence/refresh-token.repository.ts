import type { RevocationEntry } from '@arbiter/auth';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A stored refresh token: only the SHA-256 hash of the opaque token is kept. */
export interface RefreshTokenRow {
  id: string;
  tenant_id: string;
  token_hash: string;
  family_id: string;
  user_id: string;
  access_jti: string;
  access_expires_at: Date;
  expired_date: Date;
  is_revoked: boolean;
  reason_revoked: string | null;
}

/**
 * `auth_refresh_tokens` (tenant table under row-level security): one row per issued pair, grouped in
 * families (a login's chain of rotations). Every method runs in the caller's unit of work.
 */
@Injectable()
export class RefreshTokenRepository {
  async insert(
    m: EntityManager,
    token: {
      id: string;
      tenantId: string;
      tokenHash: string;
      familyId: string;
      userId: string;
      accessJti: string;
      /** Seconds since the epoch (the access token's `exp`). */
      accessExpiresAt: number;
      expiresAt: Date;
    },
  ): Promise<void> {
    await m.query(
      `INSERT INTO auth_refresh_tokens (id, tenant_id, token_hash, family_id, user_id, access_jti, access_expires_at, expired_date)
       VALUES ($1, $2, $3, $4, $5, $6, to_timestamp($7), $8)`,
      [
        token.id,
        token.tenantId,
        token.tokenHash,
        token.familyId,
        token.userId,
        token.accessJti,
        token.accessExpiresAt,
        token.expiresAt,
      ],
    );
  }

  /** The token with this hash, locked until the transaction ends (two refreshes of one token serialize). */
  async findByHashForUpdate(m: EntityManager, tokenHash: string): Promise<RefreshTokenRow | undefined> {
    const rows = await m.query(`SELECT * FROM auth_refresh_tokens WHERE token_hash = $1 FOR UPDATE`, [
      tokenHash,
    ]);
    return rows[0];
  }

  /** Marks a token as used once: revoked with reason `Rotated`, pointing at its successor. */
  async markRotated(m: EntityManager, id: string, replacedBy: string): Promise<void> {
    await m.query(
      `UPDATE auth_refresh_tokens SET is_revoked = true, revoked_date = now(), reason_revoked = 'Rotated',
              last_used_date = now(), replaced_by = $2 WHERE id = $1`,
      [id, replacedBy],
    );
  }

  /**
   * Revokes every token of a family (an already revoked one keeps its first date and reason) and
   * returns the family's access tokens that have not expired yet, to be denylisted.
   */
  async revokeFamily(m: EntityManager, familyId: string, reason: string): Promise<RevocationEntry[]> {
    await m.query(
      `UPDATE auth_refresh_tokens SET is_revoked = true, revoked_date = coalesce(revoked_date, now()),
              reason_revoked = CASE WHEN is_revoked THEN reason_revoked ELSE $2 END
        WHERE family_id = $1`,
      [familyId, reason],
    );
    const live: { access_jti: string; access_expires_at: Date }[] = await m.query(
      `SELECT access_jti, access_expires_at FROM auth_refresh_tokens WHERE family_id = $1 AND access_expires_at > now()`,
      [familyId],
    );
    return live.map((r) => ({
      jti: r.access_jti,
      expiresAt: new Date(r.access_expires_at).toISOString(),
    }));
  }

  /**
   * Revokes every refresh token of the users (an account change ended their sessions) and returns their
   * access tokens that have not expired yet, to be denylisted.
   */
  async revokeUsers(m: EntityManager, userIds: string[], reason: string): Promise<RevocationEntry[]> {
    if (userIds.length === 0) return [];
    await m.query(
      `UPDATE auth_refresh_tokens SET is_revoked = true, revoked_date = coalesce(revoked_date, now()),
              reason_revoked = CASE WHEN is_revoked THEN reason_revoked ELSE $2 END
        WHERE user_id = ANY ($1::uuid[])`,
      [userIds, reason],
    );
    const live: { access_jti: string; access_expires_at: Date }[] = await m.query(
      `SELECT access_jti, access_expires_at FROM auth_refresh_tokens
        WHERE user_id = ANY ($1::uuid[]) AND access_expires_at > now()`,
      [userIds],
    );
    return live.map((r) => ({
      jti: r.access_jti,
      expiresAt: new Date(r.access_expires_at).toISOString(),
    }));
  }
}
