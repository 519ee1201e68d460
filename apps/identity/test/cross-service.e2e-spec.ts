import { controlPlaneService } from '@arbiter/control-plane';
import { hashApiKey } from '@arbiter/auth';
import { decisionsService } from '@arbiter/decisions';
import {
  Database,
  EventBus,
  InProcessEventBus,
  NatsEventBus,
  RunningService,
  startService,
} from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { identityService } from '../src';
import { call, clockAhead, login, PAST_ACCESS_TOKEN_EXPIRY_MS } from './helpers';

/**
 * The three services side by side, sharing one bus (in-process, or NATS with TEST_NATS_URL): a token
 * issued by identity works on every service; refresh rotates; a replayed refresh token kills the
 * family everywhere; logout is enforced on every service within one second.
 */
describe('token authentication across services', () => {
  let identity: ServiceUnderTest;
  /** A second identity replica on the same database (and bus). */
  let identityB: RunningService;
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

  const identityOverrides = {
    'IdentityAuth:ServiceApiKeys': hashApiKey(SERVICE_KEY),
    // the shortest publish delay identity accepts: the JWKS refetch cooldown (5 s) + 1 s
    'IdentityAuth:KeyPublishDelaySeconds': 6,
  };

  beforeAll(async () => {
    identity = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      sharedBus: shared,
      overrides: identityOverrides,
    });
    // Replica B: the same PostgreSQL database, or identity A's embedded PGlite through its socket.
    const socketDir = (identity.service.app.get(Database).dataSource.options as { host?: string }).host;
    identityB = await startService(identityService, {
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      sharedBus: shared,
      overrides: {
        ...identityOverrides,
        'ConnectionStrings:LicenseDb':
          identity.database.kind === 'postgres'
            ? identity.database.url
            : `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir!)}`,
        'ConnectionStrings:Cache': process.env.TEST_NATS_URL ?? '',
      },
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
    const busB = identityB.app.get(EventBus);
    if (busB instanceof NatsEventBus) expect(await busB.whenConnected(10_000)).toBe(true);
    // NATS subscriptions are set up asynchronously after connect: give them a moment.
    if (!shared) await new Promise((r) => setTimeout(r, 500));
  }, 180_000);

  afterAll(async () => {
    await late?.stop();
    await decisions?.stop();
    await controlPlane?.stop();
    await identityB?.close();
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

    // Refresh (with the expired access token, as the spec wants: the clock of every service moves past
    // its expiry; the tokens issued from here on are used before it is put back): rotation.
    const restoreClock = clockAhead(PAST_ACCESS_TOKEN_EXPIRY_MS);
    try {
      await refreshRotateReplayLogout(first);
    } finally {
      restoreClock();
    }
  }, 60_000);

  async function refreshRotateReplayLogout(first: { AccessToken: string; RefreshToken: string }) {
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
  }

  it('rotates the signing key across two identity replicas: published before it signs, every token verifies at once everywhere', async () => {
    const admin = await login(identity.url, 'admin', 'admin-password-for-tests');
    const fromEach = async () =>
      Promise.all([identity.url, identityB.url].map((url) => login(url, 'erin', 'erin-password-1')));
    const everywhere = { identity: 200, 'identity-b': 200, 'control-plane': 200, decisions: 200 };
    const allStatuses = async (token: string) => ({
      ...(await statuses(token)),
      'identity-b': (await call(identityB.url, 'GET', '/api/v1/auth/ui-engine/current', { token })).status,
    });
    const kidOf = (token: string) => decodeProtectedHeader(token).kid;

    const before = await fromEach();
    const oldKid = kidOf(before[0].AccessToken);
    expect(before.map((t) => kidOf(t.AccessToken))).toEqual([oldKid, oldKid]);
    // every verifier has just fetched the JWKS (its refetch cooldown is running)
    for (const t of before) expect(await allStatuses(t.AccessToken)).toEqual(everywhere);

    // both replicas are asked at once: one rotation, both answer it
    const asked = await Promise.all(
      [identity.url, identityB.url].map((url) =>
        call(url, 'POST', '/api/v1/auth/keys/rotate', { token: admin.AccessToken }),
      ),
    );
    expect(asked.map((r) => r.status)).toEqual([200, 200]);
    const rotation = asked[0].body.result;
    expect(asked[1].body.result).toEqual(rotation);
    expect(rotation.previousKid).toBe(oldKid);
    expect(rotation.kid).not.toBe(oldKid);

    // published at once by either replica; no replica signs with it yet, and nothing is refused
    for (const url of [identity.url, identityB.url]) {
      const jwks = await call(url, 'GET', '/.well-known/jwks.json');
      expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(
        expect.arrayContaining([rotation.kid, oldKid]),
      );
    }
    const during = await fromEach();
    expect(during.map((t) => kidOf(t.AccessToken))).toEqual([oldKid, oldKid]);
    for (const t of during) expect(await allStatuses(t.AccessToken)).toEqual(everywhere);

    // 20 logins across the switch, one after another on each replica (parallel logins of one account
    // would meet the lockout's per-account reservation); then all 20 tokens verified at once everywhere
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(rotation.activatesAt) - Date.now() - 300)));
    const chain = async (url: string) => {
      const tokens: Array<{ AccessToken: string }> = [];
      for (let i = 0; i < 10; i++) tokens.push(await login(url, 'erin', 'erin-password-1'));
      return tokens;
    };
    const burst = (await Promise.all([chain(identity.url), chain(identityB.url)])).flat();
    expect(new Set(burst.map((t) => kidOf(t.AccessToken))).has(rotation.kid)).toBe(true);
    const burstStatuses = await Promise.all(burst.map((t) => allStatuses(t.AccessToken)));
    expect(burstStatuses).toEqual(burstStatuses.map(() => everywhere));

    // from activatesAt on, both replicas sign with the new key, and its tokens verify at once everywhere
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(rotation.activatesAt) - Date.now()) + 100));
    const after = await fromEach();
    expect(after.map((t) => kidOf(t.AccessToken))).toEqual([rotation.kid, rotation.kid]);
    for (const t of after) expect(await allStatuses(t.AccessToken)).toEqual(everywhere);
    // tokens signed with the retired key stay valid while they live
    for (const t of [...before, ...during]) expect(await allStatuses(t.AccessToken)).toEqual(everywhere);
    for (const url of [identity.url, identityB.url]) {
      const jwks = await call(url, 'GET', '/.well-known/jwks.json');
      expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(
        expect.arrayContaining([rotation.kid, oldKid]),
      );
    }
  }, 60_000);

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
