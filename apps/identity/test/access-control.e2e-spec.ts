import { decisionsService } from '@arbiter/decisions';
import { EventBus, InProcessEventBus, NatsEventBus } from '@arbiter/platform';
import { startService } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { generateKeyPairSync } from 'node:crypto';
import { identityService } from '../src';
import { ADMIN, call, login } from './helpers';

/**
 * Access control tried as an attacker would (issue 24): who may register where, who may grant what,
 * and what a decision-table caller needs. Identity and decisions share one bus (NATS with
 * TEST_NATS_URL), the database is PGlite or PostgreSQL (TEST_DATABASE_URL).
 */
describe('access control', () => {
  let identity: ServiceUnderTest;
  let decisions: ServiceUnderTest;
  const shared = process.env.TEST_NATS_URL?.trim() ? undefined : new InProcessEventBus('/arbiter/test');
  let admin: string;

  async function busReady(sut: ServiceUnderTest) {
    const bus = sut.service.app.get(EventBus);
    if (bus instanceof NatsEventBus) expect(await bus.whenConnected(10_000)).toBe(true);
  }

  beforeAll(async () => {
    identity = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      sharedBus: shared,
    });
    decisions = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      sharedBus: shared,
      overrides: {
        'Authentication:Jwt:Authority': identity.url,
        'Authentication:Jwt:Issuer': 'arbiter-identity',
        'Authentication:Jwt:Audience': 'arbiter',
      },
    });
    for (const sut of [identity, decisions]) await busReady(sut);
    if (!shared) await new Promise((r) => setTimeout(r, 500));
    admin = (await login(identity.url, ADMIN.userName, ADMIN.password)).AccessToken;
  }, 60_000);

  afterAll(async () => {
    await decisions?.stop();
    await identity?.stop();
    await shared?.close();
  });

  const register = (userName: string, tenant?: string) =>
    call(identity.url, 'POST', '/api/v1/auth/register', {
      body: { userName, password: `${userName}-password` },
      headers: tenant ? { 'x-tenant-id': tenant } : {},
    });

  /** A user of the `default` tenant created by the administrator with the given roles; its token. */
  async function userWith(userName: string, roles: string[]): Promise<{ id: string; token: string }> {
    const created = await call(identity.url, 'POST', '/api/v1/users', {
      token: admin,
      body: { userName, password: `${userName}-password`, roles },
    });
    expect(created.status).toBe(201);
    return {
      id: created.body.result.entityId,
      token: (await login(identity.url, userName, `${userName}-password`)).AccessToken,
    };
  }

  async function role(name: string, permissions: string[]) {
    const res = await call(identity.url, 'POST', '/api/v1/roles', { token: admin, body: { name, permissions } });
    expect(res.status).toBe(201);
    return res.body.result.entityId as string;
  }

  describe('self-registration (item 1)', () => {
    it('is off by default outside Development', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const service = await startService(identityService, {
        environment: 'Production',
        port: 0,
        host: '127.0.0.1',
        env: {},
        overrides: {
          'ConnectionStrings:LicenseDb': 'pglite://memory',
          'LicenseServer:AdminApiKey': 'k',
          'TokenConfigs:SymmetricSecretKey': 'production-hmac-key-0123456789abcdef',
          'TokenConfigs:Issuer': 'i',
          'TokenConfigs:Audience': 'a',
          'TokenConfigs:PrivateKey': privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
      });
      try {
        const res = await call(service.url, 'POST', '/api/v1/auth/register', {
          body: { userName: 'mallory', password: 'mallory-password' },
        });
        expect(res.status).toBe(403);
        expect(res.body.errors[0].code).toBe('REGISTRATION_DISABLED');
      } finally {
        await service.close();
      }
    }, 30_000);

    it("never joins a tenant that has users, unless it is listed as open", async () => {
      expect((await register('founder', 'acme')).status).toBe(201);
      const intruder = await register('mallory', 'acme');
      expect(intruder.status).toBe(403);
      expect(intruder.body.errors[0].code).toBe('TENANT_CLOSED');
      // `default` is listed in IdentityAuth:SelfRegistrationTenants by the Testing configuration
      expect((await register('walk-in', 'default')).status).toBe(201);
      const me = await login(identity.url, 'walk-in', 'walk-in-password');
      const perms = await call(identity.url, 'GET', `/api/v1/users?pageSize=1`, { token: me.AccessToken });
      expect(perms.status).toBe(403);
    });

    it('gives a registrant no access to decision tables: viewer, author and admin are enforced', async () => {
      const reg = await register('walk-in-2', 'default');
      expect(reg.status).toBe(201);
      const stranger = (await login(identity.url, 'walk-in-2', 'walk-in-2-password')).AccessToken;
      const tables = (token: string, method = 'GET', path = '', body?: unknown) =>
        call(decisions.url, method, `/api/v1/decision-tables${path}`, { token, body });
      expect((await tables(stranger)).status).toBe(403);
      expect((await tables(stranger, 'POST', '', sampleTable('stolen'))).status).toBe(403);

      await role('TableViewer', ['decisions.viewer']);
      await role('TableAuthor', ['decisions.author']);
      const viewer = await userWith('table-viewer', ['TableViewer']);
      const author = await userWith('table-author', ['TableAuthor']);

      expect((await tables(viewer.token, 'POST', '', sampleTable('by viewer'))).status).toBe(403);
      const created = await tables(author.token, 'POST', '', sampleTable('by author'));
      expect(created.status).toBe(201);
      const id = created.body.id;
      expect((await tables(viewer.token, 'GET', `/${id}`)).status).toBe(200);
      expect((await tables(viewer.token, 'POST', `/${id}/evaluate`, { input: { age: 30 } })).status).toBe(200);
      expect((await tables(stranger, 'POST', `/${id}/evaluate`, { input: { age: 30 } })).status).toBe(403);
      expect((await tables(viewer.token, 'PUT', `/${id}`, sampleTable('by viewer'))).status).toBe(403);
      expect((await tables(author.token, 'DELETE', `/${id}`)).status).toBe(403);
      expect((await tables(viewer.token, 'GET', '/audit')).status).toBe(403);
      expect((await tables(admin, 'DELETE', `/${id}`)).status).toBe(204);
    });
  });
});

function sampleTable(name: string) {
  return {
    name,
    hitPolicy: 'First',
    inputColumns: [{ name: 'age', type: 'number', required: true }],
    outputColumns: [{ name: 'risk', type: 'string' }],
    rows: [
      { id: 'r1', priority: 1, inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } },
      { id: 'r2', priority: 2, inputConditions: { age: '>= 18' }, outputs: { risk: 'adult' } },
    ],
  };
}
