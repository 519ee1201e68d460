import { hashApiKey } from '@arbiter/auth';
import { controlPlaneService } from '@arbiter/control-plane';
import { decisionsService } from '@arbiter/decisions';
import { InProcessEventBus } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityService, startIdentity } from '../src';
import { ADMIN, call, login } from './helpers';

function rsaPems() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}

async function withIdentity(
  overrides: Record<string, string | number | boolean>,
  run: (base: string) => Promise<void>,
) {
  const sut: ServiceUnderTest = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
    overrides,
  });
  try {
    await run(sut.url);
  } finally {
    await sut.stop();
  }
}

const probe = (token: string) => (base: string) =>
  call(base, 'GET', `/api/v1/auth/user-permissions/${decodeJwt(token).sub}`, { token });

describe('identity token configuration', () => {
  it('signs with configured PEM files (paths win over inline keys) and publishes that key', async () => {
    const fromFile = rsaPems();
    const inline = rsaPems();
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-keys-'));
    writeFileSync(join(dir, 'private.pem'), fromFile.privatePem);
    writeFileSync(join(dir, 'public.pem'), fromFile.publicPem);
    await withIdentity(
      {
        'TokenConfigs:PrivateKeyPath': join(dir, 'private.pem'),
        'TokenConfigs:PublicKeyPath': join(dir, 'public.pem'),
        'TokenConfigs:PrivateKey': inline.privatePem,
      },
      async (base) => {
        const jwks = (await call(base, 'GET', '/.well-known/jwks.json')).body;
        const n = (createPublicKey(fromFile.publicPem).export({ format: 'jwk' }) as { n: string }).n;
        expect(jwks.keys).toHaveLength(1);
        expect(jwks.keys[0].n).toBe(n);
        const pair = await login(base, ADMIN.userName, ADMIN.password);
        expect(decodeProtectedHeader(pair.AccessToken)).toMatchObject({
          alg: 'RS256',
          kid: jwks.keys[0].kid,
        });
        expect((await probe(pair.AccessToken)(base)).status).toBe(200);
      },
    );
  });

  it('falls back to HS256 with the symmetric key when UseRsa is false (kid on every token, nothing published)', async () => {
    await withIdentity({ 'TokenConfigs:UseRsa': false }, async (base) => {
      const pair = await login(base, ADMIN.userName, ADMIN.password);
      expect(decodeProtectedHeader(pair.AccessToken)).toMatchObject({
        alg: 'HS256',
        kid: expect.stringMatching(/^hs-/),
      });
      expect((await probe(pair.AccessToken)(base)).status).toBe(200);
      expect((await call(base, 'GET', '/.well-known/jwks.json')).body.keys).toEqual([]);
    });
  });

  it('binds per-tenant keys to the tenant claim on every service: neither key vouches for the other tenant', async () => {
    const serviceKey = rsaPems();
    const tenantKey = rsaPems();
    const SERVICE_API_KEY = 'svc_identity_tenant_keys_0123456789abcdef';
    const bus = process.env.TEST_NATS_URL?.trim() ? undefined : new InProcessEventBus('/arbiter/tenant-keys');
    const started: ServiceUnderTest[] = [];
    try {
      const identity = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
        sharedBus: bus,
        overrides: {
          'TokenConfigs:PrivateKey': serviceKey.privatePem,
          'TokenConfigs:MultiTenantEnabled': true,
          'TokenConfigs:SigningKeysByTenant:acme': tenantKey.privatePem,
          'IdentityAuth:ServiceApiKeys': hashApiKey(SERVICE_API_KEY),
        },
      });
      started.push(identity);
      const controlPlane = await startServiceForTest(
        controlPlaneService,
        'ConnectionStrings:RuleControlPlaneDb',
        {
          sharedBus: bus,
          overrides: {
            'ControlPlaneAuth:DisableAuthorization': false,
            'ControlPlaneAuth:RevocationsApiKey': SERVICE_API_KEY,
            'ControlPlaneAuth:JwksUrl': `${identity.url}/.well-known/jwks.json`,
            'ControlPlaneAuth:Issuer': 'arbiter-identity',
            'ControlPlaneAuth:Audience': 'arbiter',
          },
        },
      );
      started.push(controlPlane);
      const decisions = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
        sharedBus: bus,
        overrides: {
          'Authentication:Jwt:Authority': identity.url,
          'Authentication:Jwt:Issuer': 'arbiter-identity',
          'Authentication:Jwt:Audience': 'arbiter',
          'Authentication:Jwt:RevocationsApiKey': SERVICE_API_KEY,
        },
      });
      started.push(decisions);
      // 401 or authenticated (a user without a decisions role gets 403 there: authenticated all the same)
      const seen = (status: number) => (status === 401 ? 401 : status === 403 ? 200 : status);
      const everywhere = async (token: string) => ({
        identity: seen((await call(identity.url, 'GET', '/api/v1/auth/ui-engine/current', { token })).status),
        'control-plane': seen(
          (await call(controlPlane.url, 'GET', '/api/v1/control-plane/me', { token })).status,
        ),
        decisions: seen((await call(decisions.url, 'GET', '/api/v1/decision-tables', { token })).status),
      });
      const base = identity.url;
      await call(base, 'POST', '/api/v1/auth/register', {
        body: { userName: 'ann', password: 'ann-password-1' },
        headers: { 'x-tenant-id': 'acme' },
      });
      const acme = await login(base, 'ann', 'ann-password-1', 'acme');
      const admin = await login(base, ADMIN.userName, ADMIN.password);
      const acmeKid = decodeProtectedHeader(acme.AccessToken).kid;
      const serviceKid = decodeProtectedHeader(admin.AccessToken).kid;
      expect(acmeKid).not.toBe(serviceKid);
      const jwks = (await call(base, 'GET', '/.well-known/jwks.json')).body;
      expect(jwks.keys.find((k: { kid: string }) => k.kid === acmeKid)).toMatchObject({ tenant_id: 'acme' });
      const ok = { identity: 200, 'control-plane': 200, decisions: 200 };
      expect(await everywhere(acme.AccessToken)).toEqual(ok);
      expect(await everywhere(admin.AccessToken)).toEqual(ok);

      const refused = { identity: 401, 'control-plane': 401, decisions: 401 };
      // The acme key cannot vouch for another tenant…
      const acmeForDefault = await new SignJWT({ ...decodeJwt(acme.AccessToken), tenant_id: 'default' })
        .setProtectedHeader({ alg: 'RS256', kid: acmeKid })
        .sign(createPrivateKey(tenantKey.privatePem));
      expect(await everywhere(acmeForDefault)).toEqual(refused);
      // …and the service key cannot vouch for acme, whose claim selects acme's key.
      const serviceForAcme = await new SignJWT({ ...decodeJwt(acme.AccessToken), jti: 'forged-1' })
        .setProtectedHeader({ alg: 'RS256', kid: serviceKid })
        .sign(createPrivateKey(serviceKey.privatePem));
      expect(await everywhere(serviceForAcme)).toEqual(refused);
      const body = (
        await call(controlPlane.url, 'GET', '/api/v1/control-plane/me', { token: serviceForAcme })
      ).body;
      expect(JSON.stringify(body)).toContain('own signing key');
    } finally {
      for (const sut of started.reverse()) await sut.stop();
      await bus?.close();
    }
  }, 120_000);

  it('refuses to start with a tenant key the other services could not verify (HMAC, not RSA, short RSA)', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const short = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    for (const [value, message] of [
      ['an-hmac-secret-of-more-than-32-characters', /HMAC secret cannot be published/],
      [ec, /RSA private key of at least 2048 bits/],
      [short, /RSA private key of at least 2048 bits/],
    ] as const) {
      await expect(
        withIdentity(
          {
            'TokenConfigs:MultiTenantEnabled': true,
            'TokenConfigs:SigningKeysByTenant:acme': value,
          },
          async () => undefined,
        ),
      ).rejects.toThrow(message);
    }
  });

  it('sets an HttpOnly cookie in cookie mode and accepts it instead of the header', async () => {
    await withIdentity(
      {
        'TokenConfigs:EnableCookieAuth': true,
        'TokenConfigs:CookieSameSite': 'Strict',
        'IdentityAuth:TrustedOrigins': 'https://console.example',
      },
      async (base) => {
        const res = await fetch(`${base}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(ADMIN),
        });
        const cookie = res.headers.get('set-cookie') ?? '';
        expect(cookie).toMatch(/^AuthToken=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Strict/);
        const token = ((await res.json()) as any).result.AccessToken;
        const viaCookie = await call(base, 'GET', '/api/v1/users', {
          headers: { cookie: `AuthToken=${token}` },
        });
        expect(viaCookie.status).toBe(200);
        // Falls back to the Authorization header when there is no cookie.
        expect((await call(base, 'GET', '/api/v1/users', { token })).status).toBe(200);
        // Cross-site request forgery: a cookie-authenticated write needs the service's own (or a
        // trusted) Origin; a form-encoded body is never accepted.
        const newUser = (headers: Record<string, string>, name: string) =>
          call(base, 'POST', '/api/v1/users', {
            headers: { cookie: `AuthToken=${token}`, ...headers },
            body: { userName: name, password: 'csrf-password-1' },
          });
        for (const headers of <Record<string, string>[]>[
          {},
          { origin: 'https://evil.example' },
          { referer: 'https://evil.example/x' },
          { origin: 'null' },
        ]) {
          const refused = await newUser(headers, 'csrf-victim');
          expect({ headers, status: refused.status, code: refused.body.errors?.[0]?.code }).toEqual({
            headers,
            status: 403,
            code: 'ORIGIN_NOT_ALLOWED',
          });
        }
        expect((await newUser({ origin: base }, 'same-origin')).status).toBe(201);
        expect((await newUser({ origin: 'https://console.example' }, 'trusted-origin')).status).toBe(201);
        const form = await fetch(`${base}/api/v1/users`, {
          method: 'POST',
          headers: {
            cookie: `AuthToken=${token}`,
            origin: 'https://evil.example',
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'userName=form-user&password=form-password-1',
        });
        expect(form.status).toBe(415);
        // the bearer header is not sent by a browser on its own: no Origin needed
        expect(
          (
            await call(base, 'POST', '/api/v1/users', {
              token,
              body: { userName: 'api-user', password: 'api-password-1' },
            })
          ).status,
        ).toBe(201);
        const out = await fetch(`${base}/api/v1/auth/logout`, {
          method: 'POST',
          headers: { cookie: `AuthToken=${token}`, origin: base },
        });
        expect(out.status).toBe(200);
        expect(out.headers.get('set-cookie')).toMatch(/^AuthToken=; Max-Age=0/);
      },
    );
  });

  it('requires an RSA key in Production', async () => {
    await expect(
      startIdentity({
        environment: 'Production',
        port: 0,
        env: {},
        overrides: {
          'ConnectionStrings:LicenseDb': 'pglite://memory',
          'LicenseServer:AdminApiKey': 'k',
          'TokenConfigs:SymmetricSecretKey': 'production-hmac-key-0123456789abcdef',
          'TokenConfigs:Issuer': 'i',
          'TokenConfigs:Audience': 'a',
        },
      }),
    ).rejects.toThrow(/TokenConfigs:PrivateKeyPath \(or TokenConfigs:PrivateKey\) is required in Production/);
  });

  it('honours ApiVersioning:DefaultApiVersion', async () => {
    await withIdentity({ 'ApiVersioning:DefaultApiVersion': '2' }, async (base) => {
      const res = await call(base, 'POST', '/api/v2/auth/login', { body: ADMIN });
      expect(res.status).toBe(200);
      expect((await call(base, 'GET', '/api/v2/users', { token: res.body.result.AccessToken })).status).toBe(
        200,
      );
      expect((await call(base, 'POST', '/api/v1/auth/login', { body: ADMIN })).status).toBe(404);
    });
  });
});
