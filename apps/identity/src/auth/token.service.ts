import { RevocationEntry, RevocationList, TokenVerifier, unauthorized } from '@arbiter/auth';
import { Subjects } from '@arbiter/contracts';
import { EventBus, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { TokenSettings } from '../settings';
import { AuthErrors } from './auth-errors';
import { KeyStore } from './key-store';
import { AuthAuditRepository } from './persistence/auth-audit.repository';
import { RefreshTokenRepository } from './persistence/refresh-token.repository';
import { RevokedTokenRepository } from './persistence/revoked-token.repository';
import { UserRecord, UserRepository } from './persistence/user.repository';

/** The token pair (refresh response `{ AccessToken, RefreshToken }` as the spec names it). */
export interface TokenPair {
  AccessToken: string;
  RefreshToken: string;
  TokenType: 'Bearer';
  /** Seconds until the access token expires. */
  ExpiresIn: number;
  RefreshTokenExpiresAt: string;
}

/** What logout answers: the ids (`jti`) of the access tokens it revoked (the presented one first). */
export interface LogoutResult {
  revoked: string[];
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/**
 * Issues access tokens (15 minutes by default, `kid` in the header, `jti`, `sid` = refresh family)
 * and rotating refresh tokens (opaque, stored as SHA-256 hashes). Refresh with an already rotated
 * token is reuse: the whole family is revoked, its live access tokens denylisted, an audit record
 * written. Revocations are stored, published on `arbiter.auth.token-revoked` and applied locally.
 * Who may get a token (login, password checks) is `AuthService`'s.
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
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(RefreshTokenRepository) private readonly refreshTokens: RefreshTokenRepository,
    @Inject(RevokedTokenRepository) private readonly revokedTokens: RevokedTokenRepository,
    @Inject(AuthAuditRepository) private readonly auditLog: AuthAuditRepository,
  ) {}

  private async signAccess(m: EntityManager, user: UserRecord, familyId: string) {
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
      m,
    );
    return { token, jti, exp };
  }

  /** Issues a new pair in `familyId` (a new family for a login). Runs inside the caller's transaction. */
  async issue(
    m: EntityManager,
    user: UserRecord,
    familyId: string = randomUUID(),
  ): Promise<TokenPair & { id: string }> {
    const access = await this.signAccess(m, user, familyId);
    const refresh = randomBytes(32).toString('base64url');
    const id = randomUUID();
    const expires = new Date(Date.now() + this.settings.refreshTokenTtl * 60_000);
    await this.refreshTokens.insert(m, {
      id,
      tenantId: user.tenantId,
      tokenHash: sha256(refresh),
      familyId,
      userId: user.id,
      accessJti: access.jti,
      accessExpiresAt: access.exp,
      expiresAt: expires,
    });
    return {
      id,
      AccessToken: access.token,
      RefreshToken: refresh,
      TokenType: 'Bearer',
      ExpiresIn: access.exp - Math.floor(Date.now() / 1000),
      RefreshTokenExpiresAt: expires.toISOString(),
    };
  }

  /**
   * Spec: expired access token as bearer + refresh token. The access token's signature, issuer and
   * audience are verified (not its expiry); it must not be older than `RefreshTokenEim` minutes and
   * must belong to the refresh token's family.
   */
  async refresh(accessToken: string | undefined, refreshToken: string): Promise<TokenPair> {
    if (!accessToken)
      throw unauthorized('The expired access token is required as bearer', AuthErrors.RefreshTokenInvalid);
    const claims = await this.verifier.verify(accessToken, { allowExpired: true });
    const exp = typeof claims.exp === 'number' ? claims.exp : 0;
    if (exp - Date.now() / 1000 > this.settings.refreshEarlySeconds) {
      throw unauthorized(
        'The access token has not expired yet: refresh it once it has',
        AuthErrors.AccessTokenNotExpired,
      );
    }
    const iat = typeof claims.iat === 'number' ? claims.iat : 0;
    if (Date.now() / 1000 - iat > this.settings.refreshTokenEim * 60) {
      throw unauthorized('The access token is too old to be refreshed', AuthErrors.RefreshTokenInvalid);
    }
    const tenantId = String(claims.tenant_id ?? 'default');
    const outcome = await this.uow.run(
      async (m) => {
        const row = await this.refreshTokens.findByHashForUpdate(m, sha256(refreshToken));
        if (!row || row.user_id !== claims.sub || row.family_id !== claims.sid) {
          return { error: 'Invalid refresh token' as const };
        }
        if (row.is_revoked) {
          if (row.reason_revoked === 'Rotated') {
            const revoked = await this.revokeFamily(m, row.family_id, 'ReuseDetected');
            await this.auditLog.record(m, RequestContext.tenantId(), 'refresh-token-reuse', row.user_id, {
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
        const user = await this.users.findWithPermissions(m, row.user_id);
        if (!user) return { error: 'User no longer exists or is disabled' as const };
        const pair = await this.issue(m, user, row.family_id);
        await this.refreshTokens.markRotated(m, row.id, pair.id);
        return { pair };
      },
      { tenantId },
    );
    if ('revoked' in outcome && outcome.revoked) await this.publish(outcome.revoked, tenantId);
    if ('error' in outcome && outcome.error) {
      throw unauthorized(
        outcome.error,
        'reused' in outcome && outcome.reused
          ? AuthErrors.RefreshTokenReused
          : AuthErrors.RefreshTokenInvalid,
      );
    }
    const { id: _id, ...pair } = outcome.pair!;
    return pair;
  }

  /** Revokes every refresh token of a family and denylists its still-valid access tokens. */
  private async revokeFamily(m: EntityManager, familyId: string, reason: string): Promise<RevocationEntry[]> {
    const entries = await this.refreshTokens.revokeFamily(m, familyId, reason);
    for (const entry of entries) await this.revokedTokens.insert(m, entry, RequestContext.tenantId(), reason);
    return entries;
  }

  /**
   * Ends every session of the users (password, activation, roles or a role's permissions changed, or
   * the user was deleted): their refresh tokens are revoked and their live access tokens denylisted.
   * Runs in the caller's transaction; `publish` the result once it has committed.
   */
  async endUserSessions(m: EntityManager, userIds: string[], reason: string): Promise<RevocationEntry[]> {
    const entries = await this.refreshTokens.revokeUsers(m, userIds, reason);
    const tenantId = RequestContext.tenantId();
    for (const entry of entries) await this.revokedTokens.insert(m, entry, tenantId, reason);
    if (entries.length > 0 || userIds.length > 0) {
      await this.auditLog.record(m, tenantId, 'sessions-ended', null, {
        reason,
        users: userIds,
        revokedAccessTokens: entries.length,
      });
    }
    return entries;
  }

  /** Applies revocations locally at once and tells every other service over the bus. */
  async publish(entries: RevocationEntry[], tenantId: string): Promise<void> {
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
  async logout(claims: Record<string, unknown>): Promise<LogoutResult> {
    const jti = String(claims.jti);
    const exp = typeof claims.exp === 'number' ? claims.exp : Math.floor(Date.now() / 1000) + 3600;
    const current: RevocationEntry = { jti, expiresAt: new Date(exp * 1000).toISOString() };
    const tenantId = RequestContext.tenantId();
    const entries = await this.uow.run(async (m) => {
      await this.revokedTokens.insert(m, current, tenantId, 'Logout');
      const family = typeof claims.sid === 'string' ? await this.revokeFamily(m, claims.sid, 'Logout') : [];
      await this.auditLog.record(m, tenantId, 'logout', String(claims.sub ?? ''), {
        jti,
        familyId: claims.sid ?? null,
      });
      return [current, ...family.filter((e) => e.jti !== jti)];
    });
    await this.publish(entries, tenantId);
    return { revoked: entries.map((e) => e.jti) };
  }
}
