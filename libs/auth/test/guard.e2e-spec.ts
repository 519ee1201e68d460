import { Controller, Get, Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  AllExceptionsFilter,
  EventBus,
  hostedEnvelope,
  InProcessEventBus,
  PlatformHttpModule,
  RequestContext,
} from '@arbiter/platform';
import { Subjects } from '@arbiter/contracts';
import { SignJWT, exportSPKI, generateKeyPair, base64url } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import {
  AuthModule,
  CurrentUser,
  hashApiKey,
  KeyResolver,
  Public,
  RequirePermissions,
  RequirePolicy,
  VerificationKey,
} from '../src';

const ISSUER = 'arbiter-identity';
const AUDIENCE = 'arbiter';

@Controller('t')
class TestController {
  @Get('open')
  @Public()
  open() {
    return { user: RequestContext.current()?.user?.id ?? null };
  }

  @Get('me')
  me(@CurrentUser() user: { id: string }) {
    return { id: user.id, tenant: RequestContext.tenantId(), actor: RequestContext.actor() };
  }

  @Get('all')
  @RequirePermissions('A.Read')
  @RequirePermissions('A.Write')
  all() {
    return { ok: true };
  }

  @Get('any')
  @RequirePermissions('B.One', 'Any')
  @RequirePermissions('B.Two', 'Any')
  any() {
    return { ok: true };
  }

  @Get('mixed')
  @RequirePermissions('C.Base', 'All')
  @RequirePermissions('C.X', 'Any')
  @RequirePermissions('C.Y', 'Any')
  mixed() {
    return { ok: true };
  }

  @Get('approve')
  @RequirePolicy('cp.approver')
  approve() {
    return { ok: true };
  }
}

describe('AuthGuard and token verification', () => {
  let app: NestFastifyApplication;
  let base: string;
  let bus: InProcessEventBus;
  let rsa: { privateKey: any; publicKey: any };
  let publicPem: string;
  const KID = 'key-1';
  const API_KEY = 'ak_test_0123456789abcdef0123456789abcdef';

  beforeAll(async () => {
    rsa = (await generateKeyPair('RS256', { extractable: true })) as never;
    publicPem = await exportSPKI(rsa.publicKey as never);
    const resolver: KeyResolver = {
      resolve: async (kid): Promise<VerificationKey | undefined> =>
        kid === KID ? { kid, alg: 'RS256', key: rsa.publicKey as never } : undefined,
    };
    bus = new InProcessEventBus('/test');

    @Global()
    @Module({ providers: [{ provide: EventBus, useValue: bus }], exports: [EventBus] })
    class BusModule {}

    @Module({
      imports: [
        BusModule,
        PlatformHttpModule,
        AuthModule.forRoot({
          useFactory: () => ({
            service: 'test',
            environment: 'Testing',
            enabled: true,
            tokens: { resolver, issuer: ISSUER, audience: AUDIENCE, clockToleranceSeconds: 5 },
            apiKeys: [{ tenantId: 'tenant-k', hash: hashApiKey(API_KEY) }],
          }),
        }),
      ],
      controllers: [TestController],
    })
    class TestModule {}

    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), {
      logger: false,
    });
    app.useGlobalFilters(new AllExceptionsFilter(() => hostedEnvelope));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await app?.close();
    await bus?.close();
  });

  const now = () => Math.floor(Date.now() / 1000);

  function claims(overrides: Record<string, unknown> = {}) {
    return {
      sub: 'user-1',
      name: 'alice',
      tenant_id: 'tenant-a',
      roles: [],
      permissions: [],
      jti: `jti-${Math.random().toString(36).slice(2)}`,
      iss: ISSUER,
      aud: AUDIENCE,
      iat: now(),
      nbf: now(),
      exp: now() + 900,
      ...overrides,
    };
  }

  function sign(payload: Record<string, unknown>, header: Record<string, unknown> = {}) {
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT', ...header } as never)
      .sign(rsa.privateKey);
  }

  async function get(path: string, token?: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${base}${path}`, {
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  }

  it('accepts a valid token and sets the user, tenant (claim outranks header) and actor', async () => {
    const res = await get('/t/me', await sign(claims()), { 'x-tenant-id': 'tenant-b', 'x-actor': 'ALICE' });
    expect(res).toEqual({ status: 200, body: { id: 'user-1', tenant: 'tenant-a', actor: 'alice' } });
  });

  it('lets anonymous callers reach public routes only', async () => {
    expect((await get('/t/open')).status).toBe(200);
    expect((await get('/t/me')).status).toBe(401);
    expect((await get('/health')).status).toBe(404); // allow-listed, just not mounted here
  });

  describe('negative tokens: all 401', () => {
    const unsigned = (payload: object, header: object) =>
      `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}.`;

    const cases: [string, () => Promise<string>][] = [
      ['alg none', async () => unsigned(claims(), { alg: 'none', kid: KID, typ: 'JWT' })],
      [
        'HS256 signed with the RSA public key (algorithm confusion)',
        async () =>
          new SignJWT(claims())
            .setProtectedHeader({ alg: 'HS256', kid: KID })
            .sign(new TextEncoder().encode(publicPem)),
      ],
      ['expired', async () => sign(claims({ iat: now() - 3600, nbf: now() - 3600, exp: now() - 60 }))],
      ['not yet valid', async () => sign(claims({ nbf: now() + 120 }))],
      ['wrong issuer', async () => sign(claims({ iss: 'someone-else' }))],
      ['wrong audience', async () => sign(claims({ aud: 'other-api' }))],
      ['unknown kid', async () => sign(claims(), { kid: 'unknown-kid' })],
      ['no kid', async () => sign(claims(), { kid: undefined })],
      [
        'tampered payload',
        async () => {
          const [h, , s] = (await sign(claims())).split('.');
          return `${h}.${base64url.encode(JSON.stringify(claims({ permissions: ['*'] })))}.${s}`;
        },
      ],
      ['jku header', async () => sign(claims(), { jku: 'https://evil.example/jwks.json' })],
      ['x5u header', async () => sign(claims(), { x5u: 'https://evil.example/cert.pem' })],
      [
        'embedded jwk header',
        async () => {
          const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
          const jwk = attacker.publicKey.export({ format: 'jwk' });
          return new SignJWT(claims())
            .setProtectedHeader({ alg: 'RS256', kid: KID, jwk } as never)
            .sign(attacker.privateKey);
        },
      ],
      [
        'signed by another key with a known kid',
        async () => {
          const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
          return new SignJWT(claims())
            .setProtectedHeader({ alg: 'RS256', kid: KID })
            .sign(attacker.privateKey);
        },
      ],
      ['missing jti', async () => sign(claims({ jti: undefined }))],
      ['garbage', async () => 'not.a.token'],
    ];

    it.each(cases)('%s', async (_name, make) => {
      const res = await get('/t/me', await make());
      expect(res.status).toBe(401);
    });

    it('revoked jti (over the bus)', async () => {
      const payload = claims();
      const token = await sign(payload);
      expect((await get('/t/me', token)).status).toBe(200);
      await bus.publish(Subjects.TokenRevoked, {
        jti: payload.jti,
        expiresAt: new Date(payload.exp * 1000).toISOString(),
      });
      const res = await get('/t/me', token);
      expect(res.status).toBe(401);
      expect(res.body.errors[0].code).toBe('TOKEN_REVOKED');
    });

    it('tolerates at most the configured clock skew', async () => {
      expect((await get('/t/me', await sign(claims({ exp: now() - 3 })))).status).toBe(200);
      expect((await get('/t/me', await sign(claims({ exp: now() - 20 })))).status).toBe(401);
    });
  });

  describe('permissions: 403 when missing', () => {
    const withPerms = async (permissions: string[], path: string) =>
      (await get(path, await sign(claims({ permissions })))).status;

    it('All: every key required', async () => {
      expect(await withPerms(['A.Read', 'A.Write'], '/t/all')).toBe(200);
      expect(await withPerms(['A.Read'], '/t/all')).toBe(403);
      expect(await withPerms(['A.*'], '/t/all')).toBe(200);
      expect(await withPerms(['*'], '/t/all')).toBe(200);
    });

    it('Any: one key suffices', async () => {
      expect(await withPerms(['B.Two'], '/t/any')).toBe(200);
      expect(await withPerms(['B.One'], '/t/any')).toBe(200);
      expect(await withPerms(['C.X'], '/t/any')).toBe(403);
      expect(await withPerms([], '/t/any')).toBe(403);
    });

    it('mixed: all All-mode AND at least one Any-mode', async () => {
      expect(await withPerms(['C.Base', 'C.Y'], '/t/mixed')).toBe(200);
      expect(await withPerms(['C.Base'], '/t/mixed')).toBe(403);
      expect(await withPerms(['C.X', 'C.Y'], '/t/mixed')).toBe(403);
    });

    it('policies come from roles or permission claims; admin implies approver', async () => {
      const withRoles = async (roles: string[], permissions: string[] = []) =>
        (await get('/t/approve', await sign(claims({ roles, permissions })))).status;
      expect(await withRoles(['Approver'])).toBe(200);
      expect(await withRoles(['Admin'])).toBe(200);
      expect(await withRoles([], ['cp.approver'])).toBe(200);
      expect(await withRoles(['Viewer'])).toBe(403);
    });

    it('policies follow the permission claim and an exact role list, never a name pattern', async () => {
      const withRoles = async (roles: string[], permissions: string[] = []) =>
        (await get('/t/approve', await sign(claims({ roles, permissions })))).status;
      for (const roles of [['Administrator'], ['admin'], ['APPROVER'], ['cp.admin'], ['cp.approver']]) {
        expect({ roles, status: await withRoles(roles) }).toEqual({ roles, status: 403 });
      }
      expect(await withRoles([], ['cp.admin'])).toBe(200);
      expect(await withRoles([], ['cp.*'])).toBe(200);
      expect(await withRoles([], ['*'])).toBe(200);
    });
  });

  describe('API keys', () => {
    it('accepts X-Api-Key, Authorization: ApiKey and Authorization: Bearer <key>', async () => {
      for (const headers of <Record<string, string>[]>[
        { 'x-api-key': API_KEY },
        { authorization: `ApiKey ${API_KEY}` },
        { authorization: `Bearer ${API_KEY}` },
      ]) {
        const res = await get('/t/me', undefined, headers);
        expect(res.status).toBe(200);
        expect(res.body.tenant).toBe('tenant-k');
      }
    });

    it('refuses a wrong key', async () => {
      const res = await get('/t/me', undefined, { 'x-api-key': 'ak_wrong' });
      expect(res.status).toBe(401);
      expect(res.body.errors[0].code).toBe('API_KEY_INVALID');
    });
  });
});
