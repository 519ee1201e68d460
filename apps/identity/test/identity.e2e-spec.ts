import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { identityService, startIdentity } from '../src';

describe('identity host', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb');
  });
  afterAll(() => sut?.stop());

  it('answers /health', async () => {
    const res = await fetch(`${sut.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', service: 'identity' });
  });

  it('answers hosted routes with { isSuccess, result, errors, timestamp }', async () => {
    const res = await fetch(`${sut.url}/api/v1/unknown-entities`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      isSuccess: false,
      result: null,
      errors: [{ code: 'ROUTE_NOT_FOUND', message: expect.any(String) }],
      timestamp: expect.any(String),
    });
  });

  it('answers experience routes with { error, code, timestamp }', async () => {
    const res = await fetch(`${sut.url}/api/not-a-route`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: expect.any(String),
      code: 'ROUTE_NOT_FOUND',
      timestamp: expect.any(String),
    });
  });
});

describe('identity startup rules', () => {
  const base = { environment: 'Testing' as const, port: 0 };

  it('stops when ConnectionStrings:LicenseDb is empty, naming the key', async () => {
    await expect(startIdentity({ ...base, env: { ConnectionStrings__LicenseDb: '' } })).rejects.toThrow(
      /ConnectionStrings:LicenseDb is required/,
    );
  });

  it('validates TokenConfigs at startup', async () => {
    await expect(startIdentity({ ...base, env: { TokenConfigs__ExpiryMinutes: '0' } })).rejects.toThrow(
      /TokenConfigs:ExpiryMinutes/,
    );
    await expect(
      startIdentity({ ...base, env: { TokenConfigs__SymmetricSecretKey: 'short' } }),
    ).rejects.toThrow(/TokenConfigs:SymmetricSecretKey must be at least 32 characters/);
    await expect(
      startIdentity({ ...base, env: { TokenConfigs__CookieSameSite: 'Sometimes' } }),
    ).rejects.toThrow(/TokenConfigs:CookieSameSite/);
  });
});

describe('identity production rules', () => {
  it('stops outside Development/Testing without LicenseServer:AdminApiKey', async () => {
    await expect(
      startIdentity({
        environment: 'Production',
        port: 0,
        env: {
          ConnectionStrings__LicenseDb: 'pglite://memory',
          TokenConfigs__SymmetricSecretKey: 'x'.repeat(40),
          TokenConfigs__Issuer: 'i',
          TokenConfigs__Audience: 'a',
        },
      }),
    ).rejects.toThrow(/LicenseServer:AdminApiKey is required outside Development and Testing/);
  });
});
