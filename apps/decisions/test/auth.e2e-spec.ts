import { hashApiKey } from '@arbiter/auth';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { decisionsService, startDecisions } from '../src';
import { sampleTable } from './helpers';

/** Decision-table API behind API keys (`Authentication:ApiKeys:<tenant>` = SHA-256 hashes). */
describe('decisions API keys', () => {
  const KEY_A = 'dk_live_tenant_a_5f0c1d2e3a4b5c6d7e8f9a0b1c2d3e4f';
  const KEY_B = 'dk_live_tenant_b_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
  const SERVICE_KEY = 'dk_service_control_plane_7c1e9a0b2d4f6a8c0e1f3a5b7d9c2e4f';
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      // a service key set the way `npm start` users can: an environment variable without a `*` in its name
      env: { Authentication__ServiceApiKeys: hashApiKey(SERVICE_KEY) },
      overrides: {
        'Authentication:ApiKeys:tenant-a': hashApiKey(KEY_A),
        'Authentication:ApiKeys:tenant-b': `${hashApiKey('rotated-out-key-0123456789')},${hashApiKey(KEY_B)}`,
      },
    });
  }, 120_000);
  afterAll(() => sut?.stop());

  const list = (headers: Record<string, string>) => fetch(`${sut.url}/api/v1/decision-tables`, { headers });

  it('accepts X-Api-Key, Authorization: ApiKey and Authorization: Bearer <key>', async () => {
    expect((await list({ 'x-api-key': KEY_A })).status).toBe(200);
    expect((await list({ authorization: `ApiKey ${KEY_A}` })).status).toBe(200);
    expect((await list({ authorization: `Bearer ${KEY_B}` })).status).toBe(200);
  });

  it('refuses missing and unknown keys with 401 and the decisions envelope', async () => {
    const none = await list({});
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'UNAUTHORIZED', traceId: expect.any(String) });
    const wrong = await list({ 'x-api-key': 'dk_live_unknown' });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as any).code).toBe('API_KEY_INVALID');
  });

  it('keeps health public', async () => {
    expect((await fetch(`${sut.url}/health`)).status).toBe(200);
  });

  it('scopes the key to its tenant (the key tenant outranks x-tenant-id)', async () => {
    const created = await fetch(`${sut.url}/api/v1/decision-tables`, {
      method: 'POST',
      headers: { 'x-api-key': KEY_A, 'x-tenant-id': 'tenant-b', 'content-type': 'application/json' },
      body: JSON.stringify(sampleTable('Key scoped')),
    });
    expect(created.status).toBe(201);
    const a = await (await list({ 'x-api-key': KEY_A })).json();
    const b = await (await list({ 'x-api-key': KEY_B })).json();
    expect(JSON.stringify(a)).toContain('Key scoped');
    expect(JSON.stringify(b)).not.toContain('Key scoped');
  });

  it('takes a service key from Authentication__ServiceApiKeys: it acts for the tenant the request names', async () => {
    const created = await fetch(`${sut.url}/api/v1/decision-tables`, {
      method: 'POST',
      headers: { 'x-api-key': KEY_A, 'content-type': 'application/json' },
      body: JSON.stringify(sampleTable('Read by a service')),
    });
    expect(created.status).toBe(201);
    const asA = await list({ 'x-api-key': SERVICE_KEY, 'x-tenant-id': 'tenant-a' });
    expect(asA.status).toBe(200);
    expect(JSON.stringify(await asA.json())).toContain('Read by a service');
    const asB = await list({ authorization: `Bearer ${SERVICE_KEY}`, 'x-tenant-id': 'tenant-b' });
    expect(JSON.stringify(await asB.json())).not.toContain('Read by a service');
  });

  it("keeps /metrics (every tenant's counts) from tenants: 403 for a tenant key, 200 for a service key", async () => {
    const metrics = (key: string) =>
      fetch(`${sut.url}/api/v1/decision-tables/metrics`, {
        headers: { 'x-api-key': key, 'x-tenant-id': 'tenant-a' },
      });
    const tenant = await metrics(KEY_A);
    expect(tenant.status).toBe(403);
    expect(((await tenant.json()) as any).code).toBe('FORBIDDEN');
    const service = await metrics(SERVICE_KEY);
    expect(service.status).toBe(200);
    expect(await service.json()).toMatchObject({
      compiledCache: { capacity: 1000, evictions: 0 },
      evaluations: expect.any(Number),
    });
  });

  it('refuses to start in Production without Authority or API keys, and checks key hashes', async () => {
    await expect(
      startDecisions({
        environment: 'Production',
        port: 0,
        env: {},
        overrides: { 'ConnectionStrings:DecisionTablesDb': 'pglite://memory' },
      }),
    ).rejects.toThrow(/Authentication:Jwt:Authority \(or Authentication:ApiKeys\) is required in Production/);
    await expect(
      startDecisions({
        environment: 'Testing',
        port: 0,
        env: {},
        overrides: { 'Authentication:ApiKeys:t': 'plain-text-key' },
      }),
    ).rejects.toThrow(/Authentication:ApiKeys:t must hold sha256:<64 hex> hashes/);
    await expect(
      startDecisions({
        environment: 'Testing',
        port: 0,
        env: { Authentication__ServiceApiKeys: 'plain-text-key' },
        overrides: {},
      }),
    ).rejects.toThrow(/Authentication:ServiceApiKeys must hold sha256:<64 hex> hashes/);
    await expect(
      startDecisions({
        environment: 'Testing',
        port: 0,
        env: {},
        overrides: { 'Authentication:Jwt:Authority': 'http://identity' },
      }),
    ).rejects.toThrow(/Authentication:Jwt:Issuer is required/);
    // Open only when explicitly configured, in any environment (Testing's file turns it on).
    await expect(
      startDecisions({
        environment: 'Testing',
        port: 0,
        env: {},
        overrides: { 'Authentication:AllowAnonymous': false },
      }),
    ).rejects.toThrow(/unless Authentication:AllowAnonymous is true/);
  });

  it('refuses a presented credential it cannot verify even when anonymous access is allowed (401)', async () => {
    const open = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    try {
      const get = (headers: Record<string, string>) =>
        fetch(`${open.url}/api/v1/decision-tables`, { headers: { 'x-tenant-id': 't', ...headers } });
      expect((await get({})).status).toBe(200);
      for (const headers of <Record<string, string>[]>[
        { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' },
        { authorization: 'Bearer not-a-token' },
        { 'x-api-key': 'some-key' },
      ]) {
        const res = await get(headers);
        expect({ headers, status: res.status }).toEqual({ headers, status: 401 });
      }
      const evaluate = await fetch(
        `${open.url}/api/v1/decision-tables/00000000-0000-0000-0000-000000000000/evaluate`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer forged' },
          body: '{"input":{}}',
        },
      );
      expect(evaluate.status).toBe(401);
    } finally {
      await open.stop();
    }
  });
});
