import { hmacKeyId } from '@arbiter/auth';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { SignJWT } from 'jose';
import { controlPlaneService, startControlPlane } from '../src';

const SECRET = 'shared-hmac-secret-for-control-plane-tests-0123';

describe('control-plane operator authentication', () => {
  describe('ControlPlaneAuth:DisableAuthorization=true (the default)', () => {
    let sut: ServiceUnderTest;
    beforeAll(async () => {
      sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb');
    });
    afterAll(() => sut?.stop());

    it('still resolves tenant and actor from headers; nobody is refused', async () => {
      const res = await fetch(`${sut.url}/api/v1/control-plane/me`, {
        headers: { 'x-tenant-id': 'acme', 'x-actor': 'ops-bot', authorization: 'Bearer garbage' },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        authenticated: false,
        authorizationEnabled: false,
        id: null,
        name: 'ops-bot',
        tenantId: 'acme',
        roles: [],
        permissions: [],
        policies: ['cp.admin', 'cp.approver', 'cp.viewer'],
        tokenId: null,
        expiresAt: null,
      });
    });
  });

  describe('with a configured HMAC signing key', () => {
    let sut: ServiceUnderTest;
    beforeAll(async () => {
      sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
        overrides: {
          'ControlPlaneAuth:DisableAuthorization': false,
          'ControlPlaneAuth:SigningKey': SECRET,
          'ControlPlaneAuth:Issuer': 'arbiter-identity',
          'ControlPlaneAuth:Audience': 'arbiter',
        },
      });
    });
    afterAll(() => sut?.stop());

    const token = (claims: Record<string, unknown>, kid = hmacKeyId(SECRET)) =>
      new SignJWT({ sub: 'op-1', name: 'olivia', tenant_id: 'acme', jti: `j-${Math.random()}`, ...claims })
        .setProtectedHeader({ alg: 'HS256', kid })
        .setIssuer('arbiter-identity')
        .setAudience('arbiter')
        .setIssuedAt()
        .setExpirationTime((claims.exp as number | undefined) ?? '5m')
        .sign(new TextEncoder().encode(SECRET));

    const me = async (bearer?: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${sut.url}/api/v1/control-plane/me`, {
        headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers },
      });
      return { status: res.status, body: (await res.json()) as any };
    };

    it('returns the operator with policies from roles or permission claims; claim tenant outranks header', async () => {
      const res = await me(await token({ roles: ['Approver'], permissions: ['rules.read'] }), {
        'x-tenant-id': 'other',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        authenticated: true,
        id: 'op-1',
        name: 'olivia',
        tenantId: 'acme',
        roles: ['Approver'],
        policies: ['cp.approver', 'cp.viewer'],
      });
      expect((await me(await token({ permissions: ['cp.viewer'] }))).body.policies).toEqual(['cp.viewer']);
    });

    it('answers 401 without or with a bad token (envelope { error, code, traceId })', async () => {
      const none = await me();
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ code: 'UNAUTHORIZED', traceId: expect.any(String) });
      expect((await me(await token({}, 'another-kid'))).status).toBe(401);
      expect((await me(await token({ exp: Math.floor(Date.now() / 1000) - 60 }))).status).toBe(401);
    });

    it('keeps /api/v1/info and /health public', async () => {
      expect((await fetch(`${sut.url}/api/v1/info`)).status).toBe(200);
      expect((await fetch(`${sut.url}/health`)).status).toBe(200);
    });
  });

  it('requires Issuer and Audience when authorization is enabled', async () => {
    await expect(
      startControlPlane({
        environment: 'Testing',
        port: 0,
        env: {},
        overrides: { 'ControlPlaneAuth:DisableAuthorization': false, 'ControlPlaneAuth:SigningKey': SECRET },
      }),
    ).rejects.toThrow(/ControlPlaneAuth:Issuer is required/);
  });
});
