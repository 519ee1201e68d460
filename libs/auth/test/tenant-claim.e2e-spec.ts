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
import { generateKeyPair, SignJWT } from 'jose';
import { AuthModule, KeyResolver } from '../src';

@Controller('t')
class TenantController {
  @Get('tenant')
  tenant() {
    return { tenant: RequestContext.tenantId() };
  }
}

/** `MultiTenantConfigs:RequireTenantClaimForAuthenticatedUser`: no tenant claim, no access. */
describe('requireTenantClaim', () => {
  let app: NestFastifyApplication;
  let base: string;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  const bus = new InProcessEventBus('/test');

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const resolver: KeyResolver = {
      resolve: async (kid) =>
        kid === 'k1' ? { kid, alg: 'RS256', key: pair.publicKey as never } : undefined,
    };

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
            tokens: { resolver, issuer: 'iss', audience: 'aud' },
            requireTenantClaim: true,
          }),
        }),
      ],
      controllers: [TenantController],
    })
    class TestModule {}

    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), {
      logger: false,
    });
    app.useGlobalFilters(new AllExceptionsFilter(() => hostedEnvelope));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await bus.close();
  });

  const token = (extra: Record<string, unknown>) =>
    new SignJWT({ sub: 'u1', name: 'alice', roles: [], permissions: [], jti: `j-${Math.random()}`, ...extra })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'JWT' })
      .setIssuer('iss')
      .setAudience('aud')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);

  it('refuses an authenticated caller without tenant_id even when x-tenant-id is sent', async () => {
    const res = await fetch(`${base}/t/tenant`, {
      headers: { authorization: `Bearer ${await token({})}`, 'x-tenant-id': 'acme' },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).errors[0].code).toBe('TENANT_CLAIM_REQUIRED');
  });

  it('serves a caller whose token names the tenant', async () => {
    const res = await fetch(`${base}/t/tenant`, {
      headers: { authorization: `Bearer ${await token({ tenant_id: 'acme' })}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ tenant: 'acme' });
  });
});
