import { UnitOfWork } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { PasswordHasher } from '../src/auth/password-hasher';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { identityService } from '../src';
import { ADMIN, call, clockAhead, login, PAST_ACCESS_TOKEN_EXPIRY_MS } from './helpers';

describe('identity token authentication', () => {
  let sut: ServiceUnderTest;
  let base: string;
  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: {
        'IdentityAuth:LoginMaxFailures': 3,
        'IdentityAuth:LoginLockoutSeconds': 2,
        'IdentityAuth:KeyPublishDelaySeconds': 6,
      },
    });
    base = sut.url;
  }, 60_000);
  afterAll(() => sut?.stop());

  it('registers, logs in and calls a protected endpoint', async () => {
    const reg = await call(base, 'POST', '/api/v1/auth/register', {
      body: { userName: 'alice', password: 'alice-password-1', email: 'alice@example.com' },
    });
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({
      isSuccess: true,
      errors: [],
      result: {
        entityId: expect.any(String),
        userName: 'alice',
        roles: [],
        creationTime: expect.any(String),
      },
    });
    expect(reg.body.result).not.toHaveProperty('password');
    expect(reg.body.result).not.toHaveProperty('passwordHash');

    const pair = await login(base, 'alice', 'alice-password-1');
    const header = decodeProtectedHeader(pair.AccessToken);
    expect(header).toMatchObject({ alg: 'RS256', kid: expect.any(String), typ: 'JWT' });
    const claims = decodeJwt(pair.AccessToken);
    expect(claims).toMatchObject({
      sub: reg.body.result.entityId,
      name: 'alice',
      tenant_id: 'default',
      iss: 'arbiter-identity',
      aud: 'arbiter',
      jti: expect.any(String),
    });
    expect(claims.exp! - claims.iat!).toBe(15 * 60);

    const me = await call(base, 'GET', `/api/v1/auth/user-permissions/${reg.body.result.entityId}`, {
      token: pair.AccessToken,
    });
    expect(me.status).toBe(200);
    expect(me.body.result).toMatchObject({ userName: 'alice', roles: [], permissions: [] });

    const anonymous = await call(base, 'GET', `/api/v1/auth/user-permissions/${reg.body.result.entityId}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(anonymous.body).toMatchObject({ isSuccess: false, errors: [{ code: 'UNAUTHORIZED' }] });
  });

  it('refuses a duplicate user name and a short password', async () => {
    const dup = await call(base, 'POST', '/api/v1/auth/register', {
      body: { userName: 'ALICE', password: 'another-password' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.errors[0].code).toBe('USER_NAME_TAKEN');
    const short = await call(base, 'POST', '/api/v1/auth/register', {
      body: { userName: 'bob', password: 'x' },
    });
    expect(short.status).toBe(400);
    expect(short.body.errors[0].code).toBe('VALIDATION_FAILED');
  });

  it('stores passwords as argon2id at OWASP parameters', async () => {
    const hash = await new PasswordHasher().hash('x-password');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('serves generic CRUD for users and roles with permissions, paging, tenancy and soft delete', async () => {
    const admin = await login(base, ADMIN.userName, ADMIN.password);
    const role = await call(base, 'POST', '/api/v1/auth/create-role', {
      token: admin.AccessToken,
      body: { name: 'UserViewer', permissions: ['Users.View'] },
    });
    expect(role.status).toBe(201);
    expect(role.body.result).toMatchObject({
      entityId: expect.any(String),
      name: 'UserViewer',
      permissions: ['Users.View'],
    });

    const created = await call(base, 'POST', '/api/v1/users', {
      token: admin.AccessToken,
      body: { userName: 'carol', password: 'carol-password-1', roles: ['UserViewer'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.result).toMatchObject({
      entityId: expect.any(String),
      creationTime: expect.any(String),
    });
    const carolId = created.body.result.entityId;

    const page = await call(base, 'GET', '/api/v1/users?pageIndex=1&pageSize=2', {
      token: admin.AccessToken,
    });
    expect(page.status).toBe(200);
    expect(page.body.result).toMatchObject({ pageIndex: 1, pageSize: 2, totalCount: 3 });
    expect(page.body.result.items).toHaveLength(2);
    const page2 = await call(base, 'GET', '/api/v1/users?pageIndex=2&pageSize=2', {
      token: admin.AccessToken,
    });
    expect(page2.body.result.items).toHaveLength(1);

    // carol can view users (Users.View) but not create them (Users.Create).
    const carol = await login(base, 'carol', 'carol-password-1');
    expect((await call(base, 'GET', '/api/v1/users', { token: carol.AccessToken })).status).toBe(200);
    const denied = await call(base, 'POST', '/api/v1/users', {
      token: carol.AccessToken,
      body: { userName: 'dave', password: 'dave-password-1' },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0]).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('Users.Create'),
    });

    const updated = await call(base, 'PUT', `/api/v1/users/${carolId}`, {
      token: admin.AccessToken,
      body: { displayName: 'Carol C.' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.result).toMatchObject({ displayName: 'Carol C.', userName: 'carol' });

    // Another tenant sees none of these.
    const otherTenant = await call(base, 'POST', '/api/v1/auth/register', {
      body: { userName: 'olga', password: 'olga-password-1' },
      headers: { 'x-tenant-id': 'other' },
    });
    expect(otherTenant.status).toBe(201);
    const olga = await login(base, 'olga', 'olga-password-1', 'other');
    expect(decodeJwt(olga.AccessToken).tenant_id).toBe('other');
    const cross = await call(base, 'GET', `/api/v1/auth/user-permissions/${carolId}`, {
      token: olga.AccessToken,
    });
    expect(cross.status).toBe(403);

    const removed = await call(base, 'DELETE', `/api/v1/users/${carolId}`, { token: admin.AccessToken });
    expect(removed.status).toBe(200);
    expect((await call(base, 'GET', `/api/v1/users/${carolId}`, { token: admin.AccessToken })).status).toBe(
      404,
    );
    // A deleted user cannot log in any more.
    expect(
      (
        await call(base, 'POST', '/api/v1/auth/login', {
          body: { userName: 'carol', password: 'carol-password-1' },
        })
      ).status,
    ).toBe(401);
  });

  // The spec refreshes with the expired access token: these tests move the clock past its expiry.
  let restoreClock: (() => void) | undefined;
  afterEach(() => {
    restoreClock?.();
    restoreClock = undefined;
  });
  const accessTokensExpire = () => (restoreClock = clockAhead(PAST_ACCESS_TOKEN_EXPIRY_MS));

  it('rotates refresh tokens and revokes the whole family on reuse', async () => {
    const first = await login(base, 'alice', 'alice-password-1');
    accessTokensExpire();
    const second = await call(base, 'POST', '/api/v1/auth/refresh-token', {
      token: first.AccessToken,
      body: { refreshToken: first.RefreshToken },
    });
    expect(second.status).toBe(200);
    expect(second.body.result).toEqual(
      expect.objectContaining({ AccessToken: expect.any(String), RefreshToken: expect.any(String) }),
    );
    expect(second.body.result.RefreshToken).not.toBe(first.RefreshToken);
    const newer = second.body.result;
    const probe = `/api/v1/auth/user-permissions/${decodeJwt(newer.AccessToken).sub}`;
    expect((await call(base, 'GET', probe, { token: newer.AccessToken })).status).toBe(200);

    // Replay of the old refresh token: 401, and the newer pair dies too.
    const replay = await call(base, 'POST', '/api/v1/auth/refresh-token', {
      token: first.AccessToken,
      body: { refreshToken: first.RefreshToken },
    });
    expect(replay.status).toBe(401);
    expect(replay.body.errors[0].code).toBe('REFRESH_TOKEN_REUSED');
    const refused = await call(base, 'GET', probe, { token: newer.AccessToken });
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].code).toBe('TOKEN_REVOKED');
    accessTokensExpire();
    const newerRefresh = await call(base, 'POST', '/api/v1/auth/refresh-token', {
      token: newer.AccessToken,
      body: { refreshToken: newer.RefreshToken },
    });
    expect(newerRefresh.status).toBe(401);
    expect(newerRefresh.body.errors[0].code).toBe('REFRESH_TOKEN_INVALID');

    // The reuse is audited.
    const rows = await sut.service.app
      .get(UnitOfWork)
      .run((m) => m.query(`SELECT event FROM auth_audit WHERE event = 'refresh-token-reuse'`), {
        tenantId: 'default',
      });
    expect(rows.length).toBe(1);
  });

  it('refuses refresh without the access token or with a foreign refresh token', async () => {
    const a = await login(base, 'alice', 'alice-password-1');
    const admin = await login(base, ADMIN.userName, ADMIN.password);
    // a live access token: the spec wants the expired one
    const early = await call(base, 'POST', '/api/v1/auth/refresh-token', {
      token: a.AccessToken,
      body: { refreshToken: a.RefreshToken },
    });
    expect([early.status, early.body.errors[0].code]).toEqual([401, 'ACCESS_TOKEN_NOT_EXPIRED']);
    accessTokensExpire();
    const refusals = [
      await call(base, 'POST', '/api/v1/auth/refresh-token', { body: { refreshToken: a.RefreshToken } }),
      await call(base, 'POST', '/api/v1/auth/refresh-token', {
        token: admin.AccessToken,
        body: { refreshToken: a.RefreshToken },
      }),
      await call(base, 'POST', '/api/v1/auth/refresh-token', {
        token: a.AccessToken,
        body: { refreshToken: 'not-a-real-refresh-token' },
      }),
    ];
    expect(refusals.map((r) => [r.status, r.body.errors[0].code])).toEqual([
      [401, 'REFRESH_TOKEN_INVALID'],
      [401, 'REFRESH_TOKEN_INVALID'],
      [401, 'REFRESH_TOKEN_INVALID'],
    ]);
    // the expired pair of alice's own session still refreshes
    const own = await call(base, 'POST', '/api/v1/auth/refresh-token', {
      token: a.AccessToken,
      body: { refreshToken: a.RefreshToken },
    });
    expect(own.status).toBe(200);
  });

  it('logs out: the token is rejected afterwards and listed in /auth/revocations', async () => {
    const a = await login(base, 'alice', 'alice-password-1');
    const probe = `/api/v1/auth/user-permissions/${decodeJwt(a.AccessToken).sub}`;
    expect((await call(base, 'GET', probe, { token: a.AccessToken })).status).toBe(200);
    const out = await call(base, 'POST', '/api/v1/auth/logout', { token: a.AccessToken });
    expect(out.status).toBe(200);
    const after = await call(base, 'GET', probe, { token: a.AccessToken });
    expect(after.status).toBe(401);
    expect(after.body.errors[0].code).toBe('TOKEN_REVOKED');
    // the denylist needs a credential and shows the caller's tenant only
    expect((await call(base, 'GET', '/api/v1/auth/revocations')).status).toBe(401);
    const list = await call(base, 'GET', '/api/v1/auth/revocations', {
      token: (await login(base, 'alice', 'alice-password-1')).AccessToken,
    });
    expect(list.body.result.items).toEqual(
      expect.arrayContaining([{ jti: decodeJwt(a.AccessToken).jti, expiresAt: expect.any(String) }]),
    );
    // The session's refresh token is dead too.
    accessTokensExpire();
    const refreshed = await call(base, 'POST', '/api/v1/auth/refresh-token', {
      token: a.AccessToken,
      body: { refreshToken: a.RefreshToken },
    });
    expect(refreshed.status).toBe(401);
    expect(refreshed.body.errors[0].code).toBe('REFRESH_TOKEN_INVALID');
  });

  it('locks a login out after repeated failures with 429 and Retry-After', async () => {
    const attempt = (password: string) =>
      call(base, 'POST', '/api/v1/auth/login', {
        body: { userName: 'locked-user', password },
      });
    await call(base, 'POST', '/api/v1/auth/register', {
      body: { userName: 'locked-user', password: 'locked-password-1' },
    });
    expect((await attempt('wrong-1')).status).toBe(401);
    expect((await attempt('wrong-2')).status).toBe(401);
    // the third failure is the last attempt checked; it locks the account at once
    expect((await attempt('wrong-3')).status).toBe(401);
    const fourth = await attempt('wrong-4');
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Even the right password is refused while locked.
    const locked = await attempt('locked-password-1');
    expect(locked.status).toBe(429);
    expect(locked.body.errors[0].code).toBe('RATE_LIMITED');
    // Other identifiers are unaffected.
    expect((await call(base, 'POST', '/api/v1/auth/login', { body: ADMIN })).status).toBe(200);
    // After the lockout the right password works and clears the counter.
    await new Promise((r) => setTimeout(r, 2_100));
    expect((await attempt('locked-password-1')).status).toBe(200);
  });

  it('publishes the JWKS with kid and alg, and rotates keys keeping old tokens valid', async () => {
    const before = await call(base, 'GET', '/.well-known/jwks.json');
    expect(before.status).toBe(200);
    expect(before.body.keys).toHaveLength(1);
    expect(before.body.keys[0]).toMatchObject({
      kty: 'RSA',
      alg: 'RS256',
      use: 'sig',
      kid: expect.any(String),
    });
    expect(before.body.keys[0]).not.toHaveProperty('d');

    const admin = await login(base, ADMIN.userName, ADMIN.password);
    const oldKid = decodeProtectedHeader(admin.AccessToken).kid;
    const rotated = await call(base, 'POST', '/api/v1/auth/keys/rotate', { token: admin.AccessToken });
    expect(rotated.status).toBe(200);
    expect(rotated.body.result.previousKid).toBe(oldKid);

    const after = await call(base, 'GET', '/.well-known/jwks.json');
    expect(after.body.keys.map((k: { kid: string }) => k.kid).sort()).toEqual(
      [oldKid, rotated.body.result.kid].sort(),
    );
    // Old token still valid; the old key signs until the new one has been published for the delay…
    expect((await call(base, 'GET', '/api/v1/users', { token: admin.AccessToken })).status).toBe(200);
    const during = await login(base, ADMIN.userName, ADMIN.password);
    expect(decodeProtectedHeader(during.AccessToken).kid).toBe(oldKid);
    const activatesAt = Date.parse(rotated.body.result.activatesAt);
    expect(activatesAt - Date.now()).toBeGreaterThan(3_000);
    expect(activatesAt - Date.now()).toBeLessThanOrEqual(6_000);
    // …then new tokens use the new key, and the old ones stay valid.
    await new Promise((r) => setTimeout(r, Math.max(0, activatesAt - Date.now()) + 100));
    const fresh = await login(base, ADMIN.userName, ADMIN.password);
    expect(decodeProtectedHeader(fresh.AccessToken).kid).toBe(rotated.body.result.kid);
    expect((await call(base, 'GET', '/api/v1/users', { token: fresh.AccessToken })).status).toBe(200);
    expect((await call(base, 'GET', '/api/v1/users', { token: during.AccessToken })).status).toBe(200);

    const alice = await login(base, 'alice', 'alice-password-1');
    expect((await call(base, 'POST', '/api/v1/auth/keys/rotate', { token: alice.AccessToken })).status).toBe(
      403,
    );
  });

  it('serves the UI manifest filtered by permissions, and the routing projection', async () => {
    const admin = await login(base, ADMIN.userName, ADMIN.password);
    const full = await call(base, 'GET', '/api/v1/auth/ui-engine/current', { token: admin.AccessToken });
    expect(full.status).toBe(200);
    const ids = full.body.result.entries.map((e: { id: string }) => e.id);
    expect(ids).toEqual(expect.arrayContaining(['decision-tables', 'users', 'roles', 'rule-sets']));
    const routing = await call(base, 'GET', '/api/v1/auth/ui-engine/current?minimalFor=routing', {
      token: admin.AccessToken,
    });
    expect(routing.body.result.routes[0]).toEqual({
      id: expect.any(String),
      route: expect.any(String),
      service: expect.any(String),
    });
    const alice = await login(base, 'alice', 'alice-password-1');
    const limited = await call(base, 'GET', '/api/v1/auth/ui-engine/current', { token: alice.AccessToken });
    expect(limited.body.result.entries.map((e: { id: string }) => e.id)).toEqual(['decision-tables']);
  });
});
