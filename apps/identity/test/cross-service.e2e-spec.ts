import { controlPlaneService } from '@arbiter/control-plane';
import { hashApiKey } from '@arbiter/auth';
import { decisionsService } from '@arbiter/decisions';
import { EventBus, InProcessEventBus, NatsEventBus } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { decodeJwt } from 'jose';
import { identityService } from '../src';
import { call, login } from './helpers';

/**
 * The three services side by side, sharing one bus (in-process, or NATS with TEST_NATS_URL): a token
 * issued by identity works on every service; refresh rotates; a replayed refresh token kills the
 * family everywhere; logout is enforced on every service within one second.
 */
describe('token authentication across services', () => {
  let identity: ServiceUnderTest;
  let controlPlane: ServiceUnderTest;
  let decisions: ServiceUnderTest;
  let late: ServiceUnderTest | undefined;
  const shared = process.env.TEST_NATS_URL?.trim() ? undefined : new InProcessEventBus('/arbiter/test');

  const SERVICE_KEY = 'svc_identity_denylist_key_0123456789abcdef';
  const authOverrides = () => ({
    'ControlPlaneAuth:DisableAuthorization': false,
    'ControlPlaneAuth:RevocationsApiKey': SERVICE_KEY,
    'ControlPlaneAuth:JwksUrl': `${identity.url}/.well-known/jwks.json`,
    'ControlPlaneAuth:Issuer': 'arbiter-identity',
    'ControlPlaneAuth:Audience': 'arbiter',
  });

  async function busReady(sut: ServiceUnderTest) {
    const bus = sut.service.app.get(EventBus);
    if (bus instanceof NatsEventBus) expect(await bus.whenConnected(10_000)).toBe(true);
  }

  beforeAll(async () => {
    identity = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      sharedBus: shared,
      overrides: { 'IdentityAuth:ServiceApiKeys': hashApiKey(SERVICE_KEY) },
    });
    controlPlane = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: authOverrides(),
    });
    decisions = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      sharedBus: shared,
      overrides: {
        'Authentication:Jwt:Authority': identity.url,
        'Authentication:Jwt:Issuer': 'arbiter-identity',
        'Authentication:Jwt:Audience': 'arbiter',
        'Authentication:Jwt:RevocationsApiKey': SERVICE_KEY,
      },
    });
    for (const sut of [identity, controlPlane, decisions]) await busReady(sut);
    // NATS subscriptions are set up asynchronously after connect: give them a moment.
    if (!shared) await new Promise((r) => setTimeout(r, 500));
  }, 180_000);

  afterAll(async () => {
    await late?.stop();
    await decisions?.stop();
    await controlPlane?.stop();
    await identity?.stop();
    await shared?.close();
  });

  const probes = () => [
    { service: 'identity', url: identity.url, path: '/api/v1/auth/ui-engine/current' },
    { service: 'control-plane', url: controlPlane.url, path: '/api/v1/control-plane/me' },
    { service: 'decisions', url: decisions.url, path: '/api/v1/decision-tables' },
  ];

  async function statuses(token: string) {
    return Object.fromEntries(
      await Promise.all(
        probes().map(async (p) => [p.service, (await call(p.url, 'GET', p.path, { token })).status]),
      ),
    );
  }

  /** Polls until every service refuses the token; returns the time it took. */
  async function untilRefusedEverywhere(token: string, limitMs: number): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < limitMs + 500) {
      const s = await statuses(token);
      if (Object.values(s).every((code) => code === 401)) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(
      `token still accepted somewhere after ${limitMs} ms: ${JSON.stringify(await statuses(token))}`,
    );
  }

  it('refuses anonymous callers on protected routes, keeps public ones open', async () => {
    expect((await call(controlPlane.url, 'GET', '/api/v1/control-plane/me')).status).toBe(401);
    expect((await call(decisions.url, 'GET', '/api/v1/decision-tables')).status).toBe(401);
    expect((await call(controlPlane.url, 'GET', '/api/v1/info')).status).toBe(200);
    expect((await call(controlPlane.url, 'GET', '/health')).status).toBe(200);
    expect((await call(decisions.url, 'GET', '/health')).status).toBe(200);
  });

  it('register → login → every service → refresh → replay (family revoked everywhere) → logout (refused everywhere within 1 s)', async () => {
    const registered = await call(identity.url, 'POST', '/api/v1/auth/register', {
      body: { userName: 'erin', password: 'erin-password-1' },
    });
    expect(registered.status).toBe(201);
    // A registrant has no role: an administrator lets erin read decision tables.
    const admin = (await login(identity.url, 'admin', 'admin-password-for-tests')).AccessToken;
    const role = await call(identity.url, 'POST', '/api/v1/roles', {
      token: admin,
      body: { name: 'TableViewer', permissions: ['decisions.viewer'] },
    });
    expect(role.status).toBe(201);
    const assigned = await call(identity.url, 'PUT', `/api/v1/users/${registered.body.result.entityId}`, {
      token: admin,
      body: { roles: ['TableViewer'] },
    });
    expect(assigned.status).toBe(200);
    const first = await login(identity.url, 'erin', 'erin-password-1');
    expect(await statuses(first.AccessToken)).toEqual({
      identity: 200,
      'control-plane': 200,
      decisions: 200,
    });

    const me = await call(controlPlane.url, 'GET', '/api/v1/control-plane/me', { token: first.AccessToken });
    expect(me.body).toMatchObject({
      authenticated: true,
      id: registered.body.result.entityId,
      name: 'erin',
      tenantId: 'default',
      roles: ['TableViewer'],
      permissions: ['decisions.viewer'],
      policies: [],
      tokenId: decodeJwt(first.AccessToken).jti,
    });

    // Refresh: rotation.
    const refreshed = await call(identity.url, 'POST', '/api/v1/auth/refresh-token', {
      token: first.AccessToken,
      body: { refreshToken: first.RefreshToken },
    });
    expect(refreshed.status).toBe(200);
    const second = refreshed.body.result;
    expect(await statuses(second.AccessToken)).toEqual({
      identity: 200,
      'control-plane': 200,
      decisions: 200,
    });

    // Replay of the rotated refresh token: 401 and the newer access token dies on every service.
    const replay = await call(identity.url, 'POST', '/api/v1/auth/refresh-token', {
      token: first.AccessToken,
      body: { refreshToken: first.RefreshToken },
    });
    expect(replay.status).toBe(401);
    expect(await untilRefusedEverywhere(second.AccessToken, 1_000)).toBeLessThanOrEqual(1_000);

    // Logout: refused on every service within one second.
    const third = await login(identity.url, 'erin', 'erin-password-1');
    expect(await statuses(third.AccessToken)).toEqual({
      identity: 200,
      'control-plane': 200,
      decisions: 200,
    });
    const out = await call(identity.url, 'POST', '/api/v1/auth/logout', { token: third.AccessToken });
    expect(out.status).toBe(200);
    const elapsed = await untilRefusedEverywhere(third.AccessToken, 1_000);
    expect(elapsed).toBeLessThanOrEqual(1_000);
    const refused = await call(decisions.url, 'GET', '/api/v1/decision-tables', { token: third.AccessToken });
    expect(refused.body.code).toBe('TOKEN_REVOKED');

    // A service started after the logout loads the denylist at startup.
    late = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: authOverrides(),
    });
    expect(
      (await call(late.url, 'GET', '/api/v1/control-plane/me', { token: third.AccessToken })).status,
    ).toBe(401);
    const fresh = await login(identity.url, 'erin', 'erin-password-1');
    expect(
      (await call(late.url, 'GET', '/api/v1/control-plane/me', { token: fresh.AccessToken })).status,
    ).toBe(200);
  }, 60_000);

  it('follows identity key rotation on the other services (JWKS refreshed on unknown kid)', async () => {
    const admin = await login(identity.url, 'admin', 'admin-password-for-tests');
    const before = await login(identity.url, 'erin', 'erin-password-1');
    expect(
      (await call(identity.url, 'POST', '/api/v1/auth/keys/rotate', { token: admin.AccessToken })).status,
    ).toBe(200);
    const after = await login(identity.url, 'erin', 'erin-password-1');
    await new Promise((r) => setTimeout(r, 5_100)); // the JWKS refresh cooldown
    expect(await statuses(after.AccessToken)).toEqual({
      identity: 200,
      'control-plane': 200,
      decisions: 200,
    });
    expect(await statuses(before.AccessToken)).toEqual({
      identity: 200,
      'control-plane': 200,
      decisions: 200,
    });
  }, 30_000);

  it('accepts JSON bodies only: a form-encoded body is 415 on every service', async () => {
    const posts = [
      { url: identity.url, path: '/api/v1/auth/login' },
      { url: controlPlane.url, path: '/api/v1/rule-engine/rulesets/wf/save' },
      { url: decisions.url, path: '/api/v1/decision-tables' },
    ];
    const admin = await login(identity.url, 'admin', 'admin-password-for-tests');
    for (const p of posts) {
      const res = await fetch(`${p.url}${p.path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${admin.AccessToken}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'userName=admin&password=x&name=t',
      });
      expect({ path: p.path, status: res.status }).toEqual({ path: p.path, status: 415 });
      expect(JSON.stringify(await res.json())).toContain('UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('serves the denylist to a service key (every tenant) and to users (their tenant only), never anonymously', async () => {
    expect((await call(identity.url, 'GET', '/api/v1/auth/revocations')).status).toBe(401);
    const service = await call(identity.url, 'GET', '/api/v1/auth/revocations', {
      headers: { 'x-api-key': SERVICE_KEY },
    });
    expect(service.status).toBe(200);
    expect(service.body.result.items.length).toBeGreaterThan(0);
    // the key reads the denylist and nothing else
    expect(
      (await call(identity.url, 'GET', '/api/v1/users', { headers: { 'x-api-key': SERVICE_KEY } })).status,
    ).toBe(403);
    // a user of another tenant sees none of the default tenant's entries
    const outsider = await call(identity.url, 'POST', '/api/v1/auth/register', {
      body: { userName: 'outsider', password: 'outsider-password' },
      headers: { 'x-tenant-id': 'elsewhere' },
    });
    expect(outsider.status).toBe(201);
    const token = (await login(identity.url, 'outsider', 'outsider-password', 'elsewhere')).AccessToken;
    const theirs = await call(identity.url, 'GET', '/api/v1/auth/revocations', { token });
    expect(theirs.status).toBe(200);
    expect(theirs.body.result.items).toEqual([]);
  });

  it('reports the control-plane policies an operator holds (admin role: all three)', async () => {
    const admin = await login(identity.url, 'admin', 'admin-password-for-tests');
    const me = await call(controlPlane.url, 'GET', '/api/v1/control-plane/me', { token: admin.AccessToken });
    expect(me.body.policies).toEqual(['cp.admin', 'cp.approver', 'cp.viewer']);
  });
});
