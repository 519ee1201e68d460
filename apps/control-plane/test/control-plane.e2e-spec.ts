import { ConfigurationError, Database } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { controlPlaneService, startControlPlane } from '../src';

describe('control-plane host', () => {
  let sut: ServiceUnderTest;

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'ControlPlaneRuntimeInfo:Tier': 'Enterprise',
        'ControlPlaneRuntimeInfo:AllowedFeatures': ['cp.publish'],
      },
    });
  });
  afterAll(() => sut?.stop());

  it('answers /health with database and bus up', async () => {
    const res = await fetch(`${sut.url}/health`);
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body).toMatchObject({
      status: 'ok',
      service: 'control-plane',
      checks: {
        database: { status: 'up' },
        bus: { status: 'up', kind: process.env.TEST_NATS_URL ? 'nats' : 'in-process' },
      },
    });
  });

  it('serves the public runtime info from ControlPlaneRuntimeInfo, version from the build when empty', async () => {
    const res = await fetch(`${sut.url}/api/v1/info`);
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      activationProof: null,
      tier: 'Enterprise',
      isValid: false,
      licenseId: null,
      allowedFeatures: ['cp.publish'],
    });
  });

  it('publishes its OpenAPI document and Swagger UI', async () => {
    const json = await fetch(`${sut.url}/docs-json`);
    expect(json.status).toBe(200);
    const doc: any = await json.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/api/v1/info');
    const ui = await fetch(`${sut.url}/docs`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });

  it('answers an unknown route with the error envelope, not HTML', async () => {
    const res = await fetch(`${sut.url}/api/v1/nope`, { headers: { 'x-correlation-id': 'trace-123' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual({
      error: expect.any(String),
      code: 'ROUTE_NOT_FOUND',
      traceId: 'trace-123',
    });
  });
});

describe('control-plane startup rules', () => {
  const base = { environment: 'Testing' as const, env: {}, port: 0, host: '127.0.0.1' };

  it('stops when ConnectionStrings:RuleControlPlaneDb is empty, naming the key', async () => {
    await expect(
      startControlPlane({ ...base, overrides: { 'ConnectionStrings:RuleControlPlaneDb': '' } }),
    ).rejects.toThrow(/ConnectionStrings:RuleControlPlaneDb/);
  });

  it('stops outside Development/Testing without a readable RuleControlPlane:AuditPrivateKeyPemPath', async () => {
    const overrides = { 'ConnectionStrings:RuleControlPlaneDb': 'pglite://memory' };
    await expect(startControlPlane({ ...base, environment: 'Production', overrides })).rejects.toThrow(
      /RuleControlPlane:AuditPrivateKeyPemPath is required outside Development and Testing/,
    );
    await expect(
      startControlPlane({
        ...base,
        environment: 'Production',
        overrides: { ...overrides, 'RuleControlPlane:AuditPrivateKeyPemPath': '/nonexistent/audit.pem' },
      }),
    ).rejects.toThrow(/missing or unreadable/);
  });

  it('stops when authorization is enabled without ControlPlaneAuth:SigningKey', async () => {
    const error = await startControlPlane({
      ...base,
      overrides: {
        'ConnectionStrings:RuleControlPlaneDb': 'pglite://memory',
        'ControlPlaneAuth:DisableAuthorization': false,
      },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.keys).toEqual(['ControlPlaneAuth:SigningKey']);
  });

  it('stops with one line naming ControlPlaneAuth:SigningKey when the HMAC secret is too short (issue 27 item 10)', async () => {
    const error = await startControlPlane({
      ...base,
      overrides: {
        'ConnectionStrings:RuleControlPlaneDb': 'pglite://memory',
        'ControlPlaneAuth:DisableAuthorization': false,
        'ControlPlaneAuth:SigningKey': 'short-secret',
        'ControlPlaneAuth:Issuer': 'arbiter-identity',
        'ControlPlaneAuth:Audience': 'arbiter',
      },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.keys).toEqual(['ControlPlaneAuth:SigningKey']);
    expect(error.message).toMatch(/^ControlPlaneAuth:SigningKey is an HMAC secret of 12 characters/);
    expect(error.message).not.toContain('\n');
  });

  it('refuses a malformed value with the key in the message', async () => {
    await expect(
      startControlPlane({
        ...base,
        overrides: {
          'ConnectionStrings:RuleControlPlaneDb': 'pglite://memory',
          'RuleControlPlane:RequireApproval': 'maybe',
        },
      }),
    ).rejects.toThrow(/RuleControlPlane:RequireApproval must be true or false/);
    await expect(
      startControlPlane({
        ...base,
        env: { RULEENGINE_EXECUTIONROUTER_MODE: 'Sideways' },
        overrides: { 'ConnectionStrings:RuleControlPlaneDb': 'pglite://memory' },
      }),
    ).rejects.toThrow(/RuleEngineOptions:ExecutionRouter:Mode/);
  });

  it('refuses a connection string that is neither postgres:// nor pglite://', async () => {
    await expect(
      startControlPlane({ ...base, overrides: { 'ConnectionStrings:RuleControlPlaneDb': 'mysql://x' } }),
    ).rejects.toThrow(/ConnectionStrings:RuleControlPlaneDb must be postgres/);
  });
});

describe('control-plane request context', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb');
  });
  afterAll(() => sut?.stop());

  it('refuses a malformed x-tenant-id with 400 INVALID_TENANT_ID', async () => {
    const res = await fetch(`${sut.url}/api/v1/info`, {
      headers: { 'x-tenant-id': "acme'; DROP TABLE x; --" },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'INVALID_TENANT_ID' });
  });

  it('echoes a valid correlation id and generates one otherwise', async () => {
    const given = await fetch(`${sut.url}/api/v1/info`, { headers: { 'x-correlation-id': 'abc-123' } });
    expect(given.headers.get('x-correlation-id')).toBe('abc-123');
    const generated = await fetch(`${sut.url}/api/v1/info`);
    expect(generated.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('control-plane with its event bus down', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'ConnectionStrings:Cache': 'nats://127.0.0.1:1' },
    });
  });
  afterAll(() => sut?.stop());

  it('starts anyway, reports 503 on /health naming the bus, and keeps serving requests', async () => {
    const health = await fetch(`${sut.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      status: 'degraded',
      checks: { database: { status: 'up' }, bus: { status: 'down', kind: 'nats' } },
    });
    expect((await fetch(`${sut.url}/health/live`)).status).toBe(200);
    expect((await fetch(`${sut.url}/api/v1/info`)).status).toBe(200);
  });
});

describe('control-plane with its database gone', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb');
  });
  afterAll(() => sut?.stop());

  it('reports 503 on /health naming the database', async () => {
    await sut.service.app.get(Database).stop();
    const health = await fetch(`${sut.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      status: 'degraded',
      checks: { database: { status: 'down' } },
    });
  });
});
