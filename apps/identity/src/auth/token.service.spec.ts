import { RevocationList, TokenVerifier } from '@arbiter/auth';
import { InProcessEventBus } from '@arbiter/platform';
import { decodeJwt } from 'jose';
import type { EntityManager } from 'typeorm';
import {
  InMemoryAudit,
  InMemoryRefreshTokens,
  InMemoryRevokedTokens,
  inMemoryUnitOfWork as uow,
  NoStoredKeys,
} from '../../test/in-memory-repositories';
import { SecretProvider } from '../secrets';
import { TokenSettings } from '../settings';
import { KeyStore } from './key-store';
import { UserRecord, UserRepository } from './persistence/user.repository';
import { PAST_ACCESS_TOKEN_EXPIRY_MS } from '../../test/helpers';
import { TokenService } from './token.service';

// Unit test: the token service over in-memory repositories and an HS256 key store (no database).

const m = {} as EntityManager;

const alice: UserRecord = {
  id: '0b7c6f3e-7f0e-4f35-9d6e-2f1d2a3b4c5d',
  tenantId: 'default',
  userName: 'alice',
  roles: ['Approver'],
  permissions: ['cp.approver'],
};

class OneUser extends UserRepository {
  override async findWithPermissions(_m: EntityManager, id: string) {
    return id === alice.id ? alice : undefined;
  }
}

describe('TokenService', () => {
  let refreshTokens: InMemoryRefreshTokens;
  let revoked: InMemoryRevokedTokens;
  let audit: InMemoryAudit;
  let denylist: RevocationList;
  let bus: InProcessEventBus;
  let tokens: TokenService;
  const published: unknown[] = [];

  /** Time passes beyond the access tokens' lifetime: the spec refreshes with an expired one. */
  const later = () => jest.setSystemTime(Date.now() + PAST_ACCESS_TOKEN_EXPIRY_MS);
  afterEach(() => jest.useRealTimers());

  beforeEach(async () => {
    jest.useFakeTimers({
      doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'setTimeout', 'setInterval'],
    });
    const settings = Object.assign(new TokenSettings(), {
      useRsa: false,
      symmetricSecretKey: 'a-test-secret-of-at-least-thirty-two-characters',
      issuer: 'arbiter-test',
      audience: 'arbiter',
    });
    const secrets = { get: async () => undefined } as unknown as SecretProvider;
    const keys = new KeyStore(uow, new NoStoredKeys(), settings, secrets, 'Testing');
    await keys.onModuleInit();
    denylist = new RevocationList();
    const verifier = new TokenVerifier({
      resolver: keys,
      issuer: settings.issuer,
      audience: settings.audience,
    });
    bus = new InProcessEventBus('test');
    published.length = 0;
    await bus.subscribe('arbiter.auth.token-revoked', (e) => {
      published.push(e.data);
    });
    refreshTokens = new InMemoryRefreshTokens();
    revoked = new InMemoryRevokedTokens();
    audit = new InMemoryAudit();
    tokens = new TokenService(
      uow,
      keys,
      settings,
      bus,
      denylist,
      verifier,
      new OneUser(),
      refreshTokens,
      revoked,
      audit,
    );
  });
  afterEach(() => bus.close());

  it('issues an access token with the user, its permissions and a new family, and a refresh token stored hashed', async () => {
    const pair = await tokens.issue(m, alice);
    const claims = decodeJwt(pair.AccessToken);
    expect(claims).toMatchObject({
      sub: alice.id,
      name: 'alice',
      tenant_id: 'default',
      roles: ['Approver'],
      permissions: ['cp.approver'],
      iss: 'arbiter-test',
      aud: 'arbiter',
    });
    expect(claims.exp! - claims.iat!).toBe(15 * 60);
    expect(pair).toMatchObject({ TokenType: 'Bearer', ExpiresIn: 15 * 60 });
    expect(refreshTokens.rows).toHaveLength(1);
    expect(refreshTokens.rows[0]).toMatchObject({ family_id: claims.sid, access_jti: claims.jti });
    expect(refreshTokens.rows[0].token_hash).not.toContain(pair.RefreshToken);
  });

  it('rotates on refresh: a new pair in the same family, the used refresh token retired', async () => {
    const first = await tokens.issue(m, alice);
    later();
    const second = await tokens.refresh(first.AccessToken, first.RefreshToken);
    expect(second.RefreshToken).not.toBe(first.RefreshToken);
    expect(decodeJwt(second.AccessToken).sid).toBe(decodeJwt(first.AccessToken).sid);
    expect(refreshTokens.rows.map((r) => r.reason_revoked)).toEqual(['Rotated', null]);
    later();
    expect(await tokens.refresh(second.AccessToken, second.RefreshToken)).toHaveProperty('AccessToken');
  });

  it('detects reuse of a rotated refresh token: the family is revoked, its access tokens denylisted and announced', async () => {
    const first = await tokens.issue(m, alice);
    later();
    const second = await tokens.refresh(first.AccessToken, first.RefreshToken);
    await expect(tokens.refresh(first.AccessToken, first.RefreshToken)).rejects.toMatchObject({
      status: 401,
      code: 'REFRESH_TOKEN_REUSED',
    });
    const secondJti = String(decodeJwt(second.AccessToken).jti);
    expect(denylist.isRevoked(secondJti)).toBe(true);
    expect(revoked.entries.map((e) => e.reason)).toContain('ReuseDetected');
    expect(audit.events).toEqual(['refresh-token-reuse']);
    later();
    await expect(tokens.refresh(second.AccessToken, second.RefreshToken)).rejects.toMatchObject({
      code: 'REFRESH_TOKEN_INVALID',
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(published).toContainEqual(expect.objectContaining({ jti: secondJti }));
  });

  it("refuses a refresh token of another session, an unknown one, or one without the session's access token", async () => {
    const a = await tokens.issue(m, alice);
    const b = await tokens.issue(m, alice);
    later();
    await expect(tokens.refresh(a.AccessToken, b.RefreshToken)).rejects.toMatchObject({
      code: 'REFRESH_TOKEN_INVALID',
    });
    await expect(tokens.refresh(a.AccessToken, 'made-up')).rejects.toMatchObject({
      code: 'REFRESH_TOKEN_INVALID',
    });
    await expect(tokens.refresh(undefined, a.RefreshToken)).rejects.toMatchObject({
      code: 'REFRESH_TOKEN_INVALID',
    });
  });

  it('refuses to refresh with an access token that has not expired (ACCESS_TOKEN_NOT_EXPIRED)', async () => {
    const pair = await tokens.issue(m, alice);
    await expect(tokens.refresh(pair.AccessToken, pair.RefreshToken)).rejects.toMatchObject({
      status: 401,
      code: 'ACCESS_TOKEN_NOT_EXPIRED',
    });
    later();
    expect(await tokens.refresh(pair.AccessToken, pair.RefreshToken)).toHaveProperty('AccessToken');
  });

  it('refuses an expired refresh token', async () => {
    const pair = await tokens.issue(m, alice);
    later();
    refreshTokens.rows[0].expired_date = new Date(Date.now() - 1000);
    await expect(tokens.refresh(pair.AccessToken, pair.RefreshToken)).rejects.toMatchObject({
      status: 401,
      message: 'Refresh token has expired',
    });
  });

  it('logs out: the access token and its session are revoked', async () => {
    const first = await tokens.issue(m, alice);
    later();
    const second = await tokens.refresh(first.AccessToken, first.RefreshToken);
    const claims = decodeJwt(second.AccessToken) as Record<string, unknown>;
    const result = await tokens.logout(claims);
    expect(result.revoked).toContain(claims.jti);
    expect(denylist.isRevoked(String(claims.jti))).toBe(true);
    expect(audit.events).toEqual(['logout']);
    later();
    await expect(tokens.refresh(second.AccessToken, second.RefreshToken)).rejects.toMatchObject({
      code: 'REFRESH_TOKEN_INVALID',
    });
  });
});
