import {
  RevocationEntry,
  RevocationList,
  RevocationSource,
  TokenVerifier,
  unauthorized,
} from '@arbiter/auth';
import { Subjects } from '@arbiter/contracts';
import { AppError, EventBus, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { TokenSettings } from '../settings/identity.settings';
import { KeyStore } from './key-store';

export interface UserRecord {
  id: string;
  tenantId: string;
  userName: string;
  roles: string[];
  permissions: string[];
}

/** The token pair (refresh response `{ AccessToken, RefreshToken }` as the spec names it). */
export interface TokenPair {
  AccessToken: string;
  RefreshToken: string;
  TokenType: 'Bearer';
  /** Seconds until the access token expires. */
  ExpiresIn: number;
  RefreshTokenExpiresAt: string;
}

export const REFRESH_ERROR = 'REFRESH_TOKEN_INVALID';
export const REFRESH_REUSED = 'REFRESH_TOKEN_REUSED';

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Revoked token ids from identity's own table (identity's denylist bootstrap). */
@Injectable()
export class RevocationStore implements RevocationSource {
  constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  list(): Promise<RevocationEntry[]> {
    return this.uow.run(
      async (m) => {
        const rows: { jti: string; expires_at: Date }[] = await m.query(
          `SELECT jti, expires_at FROM auth_revoked_tokens WHERE expires_at > now() ORDER BY expires_at`,
        );
        return rows.map((r) => ({ jti: r.jti, expiresAt: new Date(r.expires_at).toISOString() }));
      },
      { tenantId: 'default' },
    );
  }
}

/**
 * Issues access tokens (15 minutes by default, `kid` in the header, `jti`, `sid` = refresh family)
 * and rotating refresh tokens (opaque, stored as SHA-256 hashes). Refresh with an already rotated
 * token is reuse: the whole family is revoked, its live access tokens denylisted, an audit record
 * written. Revocations are stored, published on `arbiter.auth.token-revoked` and applied locally.
 */
@Injectable()
export class TokenService {
  private readonly logger = new Logger('TokenService');

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(KeyStore) private readonly keys: KeyStore,
    @Inject(TokenSettings) private readonly settings: TokenSettings,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(RevocationList) private readonly denylist: RevocationList,
    @Inject(TokenVerifier) private readonly verifier: TokenVerifier,
  ) {}

  /** Effective permissions: the union of the user's roles' permissions (and `*` for `Admin`). */
  async loadUser(m: EntityManager, userId: string): Promise<UserRecord | undefined> {
    const rows = await m.query(
      `SELECT u.id, u.tenant_id, u.user_name, u.roles,
              coalesce((SELECT array_agg(DISTINCT p) FROM auth_roles r, unnest(r.permissions) p
                         WHERE NOT r.is_deleted AND lower(r.name) = ANY (SELECT lower(x) FROM unnest(u.roles) x)), '{}') AS permissions
         FROM auth_users u WHERE u.id = $1 AND NOT u.is_deleted AND u.is_active`,
      [userId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      tenantId: row.tenant_id,
      userName: row.user_name,
      roles: row.roles ?? [],
      permissions: row.permissions ?? [],
    };
  }

  private async signAccess(user: UserRecord, familyId: string) {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + this.settings.expiryMinutes * 60;
    const jti = randomUUID();
    const token = await this.keys.sign(
      {
        sub: user.id,
        name: user.userName,
        tenant_id: user.tenantId,
        roles: user.roles,
        permissions: user.permissions,
        sid: familyId,
        jti,
        iat: now,
        nbf: now,
        exp,
        iss: this.settings.issuer,
        aud: this.settings.audience,
      },
      user.tenantId,
    );
    return { token, jti, exp };
  }

  /** Issues a new pair in `familyId` (a new family for a login). Runs inside the caller's transaction. */
  async issue(
    m: EntityManager,
    user: UserRecord,
    familyId: string = randomUUID(),
  ): Promise<TokenPair & { id: string }> {
    const access = await this.signAccess(user, familyId);
    const refresh = randomBytes(32).toString('base64url');
    const id = randomUUID();
    const expires = new Date(Date.now() + this.settings.refreshTokenTtl * 60_000);
    await m.query(
      `INSERT INTO auth_refresh_tokens (id, tenant_id, token_hash, family_id, user_id, access_jti, access_expires_at, expired_date)
       VALUES ($1, $2, $3, $4, $5, $6, to_timestamp($7), $8)`,
      [id, user.tenantId, sha256(refresh), familyId, user.id, access.jti, access.exp, expires],
    );
    return {
      id,
      AccessToken: access.token,
      RefreshToken: refresh,
      TokenType: 'Bearer',
      ExpiresIn: access.exp - Math.floor(Date.now() / 1000),
      RefreshTokenExpiresAt: expires.toISOString(),
    };
  }

  async audit(m: EntityManager, event: string, subject: string | null, details: Record<string, unknown>) {
    await m.query(
      `INSERT INTO auth_audit (id, tenant_id, event, subject, details) VALUES ($1, $2, $3, $4, $5)`,
      [randomUUID(), RequestContext.tenantId(), event, subject, JSON.stringify(details)],
    );
  }

  /**
   * Spec: expired access token as bearer + refresh token. The access token's signature, issuer and
   * audience are verified (not its expiry); it must not be older than `RefreshTokenEim` minutes and
   * must belong to the refresh token's family.
   */
  async refresh(accessToken: string | undefined, refreshToken: string): Promise<TokenPair> {
    if (!accessToken) throw unauthorized('The expired access token is required as bearer', REFRESH_ERROR);
    const claims = await this.verifier.verify(accessToken, { allowExpired: true });
    const iat = typeof claims.iat === 'number' ? claims.iat : 0;
    if (Date.now() / 1000 - iat > this.settings.refreshTokenEim * 60) {
      throw unauthorized('The access token is too old to be refreshed', REFRESH_ERROR);
    }
    const tenantId = String(claims.tenant_id ?? 'default');
    const outcome = await this.uow.run(
      async (m) => {
        const rows = await m.query(`SELECT * FROM auth_refresh_tokens WHERE token_hash = $1 FOR UPDATE`, [
          sha256(refreshToken),
        ]);
        const row = rows[0];
        if (!row || row.user_id !== claims.sub || row.family_id !== claims.sid) {
          return { error: 'Invalid refresh token' as const };
        }
        if (row.is_revoked) {
          if (row.reason_revoked === 'Rotated') {
            const revoked = await this.revokeFamily(m, row.family_id, 'ReuseDetected');
            await this.audit(m, 'refresh-token-reuse', row.user_id, {
              familyId: row.family_id,
              refreshTokenId: row.id,
              revokedAccessTokens: revoked.length,
            });
            this.logger.warn({
              msg: 'refresh token reuse detected: family revoked',
              familyId: row.family_id,
              userId: row.user_id,
            });
            return {
              error: 'Refresh token reuse detected; the session has been revoked' as const,
              reused: true,
              revoked,
            };
          }
          return { error: 'Refresh token has been revoked' as const };
        }
        if (new Date(row.expired_date).getTime() <= Date.now())
          return { error: 'Refresh token has expired' as const };
        const user = await this.loadUser(m, row.user_id);
        if (!user) return { error: 'User no longer exists or is disabled' as const };
        const pair = await this.issue(m, user, row.family_id);
        await m.query(
          `UPDATE auth_refresh_tokens SET is_revoked = true, revoked_date = now(), reason_revoked = 'Rotated',
                  last_used_date = now(), replaced_by = $2 WHERE id = $1`,
          [row.id, pair.id],
        );
        return { pair };
      },
      { tenantId },
    );
    if ('revoked' in outcome && outcome.revoked) await this.publish(outcome.revoked, tenantId);
    if ('error' in outcome && outcome.error) {
      throw unauthorized(
        outcome.error,
        'reused' in outcome && outcome.reused ? REFRESH_REUSED : REFRESH_ERROR,
      );
    }
    const { id: _id, ...pair } = outcome.pair!;
    return pair;
  }

  /** Revokes every refresh token of a family and denylists its still-valid access tokens. */
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
    const entries = live.map((r) => ({
      jti: r.access_jti,
      expiresAt: new Date(r.access_expires_at).toISOString(),
    }));
    for (const entry of entries) await this.storeRevocation(m, entry, reason);
    return entries;
  }

  private async storeRevocation(m: EntityManager, entry: RevocationEntry, reason: string) {
    await m.query(
      `INSERT INTO auth_revoked_tokens (jti, tenant_id, expires_at, reason) VALUES ($1, $2, $3, $4) ON CONFLICT (jti) DO NOTHING`,
      [entry.jti, RequestContext.tenantId(), entry.expiresAt, reason],
    );
  }

  /** Applies revocations locally at once and tells every other service over the bus. */
  private async publish(entries: RevocationEntry[], tenantId: string): Promise<void> {
    for (const entry of entries) {
      this.denylist.add(entry);
      await this.bus
        .publish(
          Subjects.TokenRevoked,
          { jti: entry.jti, expiresAt: entry.expiresAt, tenantId },
          { tenantId },
        )
        .catch((error) =>
          this.logger.error({
            msg: 'could not publish token revocation',
            jti: entry.jti,
            error: String(error),
          }),
        );
    }
  }

  /** Logout: revokes the presented access token and ends its refresh family (session). */
  async logout(claims: Record<string, unknown>): Promise<{ revoked: string[] }> {
    const jti = String(claims.jti);
    const exp = typeof claims.exp === 'number' ? claims.exp : Math.floor(Date.now() / 1000) + 3600;
    const current: RevocationEntry = { jti, expiresAt: new Date(exp * 1000).toISOString() };
    const tenantId = RequestContext.tenantId();
    const entries = await this.uow.run(async (m) => {
      await this.storeRevocation(m, current, 'Logout');
      const family = typeof claims.sid === 'string' ? await this.revokeFamily(m, claims.sid, 'Logout') : [];
      await this.audit(m, 'logout', String(claims.sub ?? ''), { jti, familyId: claims.sid ?? null });
      return [current, ...family.filter((e) => e.jti !== jti)];
    });
    await this.publish(entries, tenantId);
    return { revoked: entries.map((e) => e.jti) };
  }

  assertRefreshBody(refreshToken: unknown): string {
    if (typeof refreshToken !== 'string' || !refreshToken.trim() || refreshToken.length > 512) {
      throw AppError.validation([
        { field: 'refreshToken', message: 'refreshToken must be a non-empty string' },
      ]);
    }
    return refreshToken.trim();
  }
}
