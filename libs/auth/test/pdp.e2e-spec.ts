import { Controller, Get, Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  AllExceptionsFilter,
  EventBus,
  hostedEnvelope,
  InProcessEventBus,
  PlatformHttpModule,
} from '@arbiter/platform';
import { SignJWT } from 'jose';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  AuthModule,
  hmacKeyId,
  HttpPermissionDecisionPoint,
  RequirePermissions,
  StaticKeyResolver,
} from '../src';

const SECRET = 'pdp-test-secret-0123456789abcdef-0123';

@Controller('p')
class PdpController {
  @Get('guarded')
  @RequirePermissions('Reports.View')
  guarded() {
    return { ok: true };
  }

  @Get('plain')
  plain() {
    return { ok: true };
  }
}

/** Delegation of permission decisions to an external policy decision point over HTTP. */
describe('policy decision point delegation', () => {
  let app: NestFastifyApplication;
  let pdp: Server;
  let base: string;
  const questions: any[] = [];
  let answer: unknown = { allowed: true };
  const bus = new InProcessEventBus('/pdp-test');

  beforeAll(async () => {
    pdp = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        questions.push(JSON.parse(body));
        if (answer === 'down') {
          res.writeHead(500).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => pdp.listen(0, '127.0.0.1', () => r()));
    const pdpUrl = `http://127.0.0.1:${(pdp.address() as AddressInfo).port}/decide`;

    @Global()
    @Module({ providers: [{ provide: EventBus, useValue: bus }], exports: [EventBus] })
    class BusModule {}

    @Module({
      imports: [
        BusModule,
        PlatformHttpModule,
        AuthModule.forRoot({
          useFactory: () => ({
            service: 'pdp-test',
            environment: 'Testing',
            enabled: true,
            tokens: { resolver: new StaticKeyResolver(SECRET), issuer: 'i', audience: 'a' },
            decisionPoint: new HttpPermissionDecisionPoint(pdpUrl, 1_000),
          }),
        }),
      ],
      controllers: [PdpController],
    })
    class PdpModule {}

    app = await NestFactory.create<NestFastifyApplication>(PdpModule, new FastifyAdapter(), {
      logger: false,
    });
    app.useGlobalFilters(new AllExceptionsFilter(() => hostedEnvelope));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await new Promise((r) => pdp.close(r));
    await bus.close();
  });

  const token = () =>
    new SignJWT({
      sub: 'u1',
      name: 'ursula',
      tenant_id: 't1',
      roles: ['Analyst'],
      permissions: [],
      jti: `j${Math.random()}`,
    })
      .setProtectedHeader({ alg: 'HS256', kid: hmacKeyId(SECRET) })
      .setIssuer('i')
      .setAudience('a')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(SECRET));

  const get = async (path: string) =>
    (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${await token()}` } })).status;

  it('asks the PDP and follows its answer, even against the local claims', async () => {
    answer = { allowed: true };
    expect(await get('/p/guarded')).toBe(200);
    expect(questions.at(-1)).toMatchObject({
      subject: { id: 'u1', name: 'ursula', tenantId: 't1', roles: ['Analyst'], permissions: [] },
      requirements: [{ key: 'Reports.View', mode: 'All' }],
      action: { method: 'GET', path: '/p/guarded' },
    });
    answer = { allowed: false };
    expect(await get('/p/guarded')).toBe(403);
  });

  it('fails closed (503) when the PDP is down or answers nonsense', async () => {
    answer = 'down';
    expect(await get('/p/guarded')).toBe(503);
    answer = { verdict: 'yes' };
    expect(await get('/p/guarded')).toBe(503);
  });

  it('is not consulted for routes without requirements', async () => {
    const before = questions.length;
    answer = 'down';
    expect(await get('/p/plain')).toBe(200);
    expect(questions.length).toBe(before);
  });
});
