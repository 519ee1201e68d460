import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { request as httpRequest } from 'node:http';
import { RequestContext } from '../src/context/request-context';
import { AppError } from '../src/errors/app-error';
import { traceEnvelope } from '../src/errors/error-envelope';
import { HotRouteRequest, registerHotRoute } from '../src/http/hot-route';
import { RunningService } from '../src/http/service-host';
import { startProbe } from './probe-service';

/** Which path served a request: Fastify's request object carries `raw`, the fast path's does not. */
const servedBy = (request: HotRouteRequest) => ('raw' in request ? 'fastify' : 'fast-path');

@Injectable()
class ProbeHotRoutes implements OnApplicationBootstrap {
  constructor(@Inject(HttpAdapterHost) private readonly host: HttpAdapterHost) {}

  onApplicationBootstrap() {
    registerHotRoute(this.host.httpAdapter, {
      method: 'POST',
      url: '/api/v1/probe/:name/echo',
      envelope: traceEnvelope,
      handle: (request) => {
        const body = request.body as { fail?: string; wait?: number } | undefined;
        const answer = () => ({
          servedBy: servedBy(request),
          name: request.params.name,
          query: request.query,
          body,
          tenantId: RequestContext.tenantId(),
          correlationId: RequestContext.correlationId(),
          ip: request.ip,
        });
        if (body?.fail === 'conflict') throw AppError.conflict('PROBE_CONFLICT', 'probe conflict');
        if (body?.fail === 'limited') throw AppError.tooManyRequests(7);
        if (body?.fail === 'crash') throw new Error('secret internal detail: password=hunter2');
        if (body?.fail === 'async-conflict')
          return Promise.reject(AppError.conflict('PROBE_CONFLICT', 'probe conflict'));
        if (typeof body?.wait === 'number')
          return new Promise((resolve) => setTimeout(() => resolve(answer()), body.wait));
        return answer();
      },
    });
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One request with Node's client: `chunked` sends the body without a content length (Fastify's path). */
function send(
  url: string,
  path: string,
  options: { body?: string; headers?: Record<string, string>; chunked?: boolean; method?: string } = {},
): Promise<Answer> {
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: options.method ?? 'POST',
        headers: { 'content-type': 'application/json', ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) {
      if (options.chunked) {
        req.setHeader('transfer-encoding', 'chunked');
        req.write(options.body.slice(0, 3));
        req.end(options.body.slice(3));
      } else {
        req.setHeader('content-length', Buffer.byteLength(options.body));
        req.end(options.body);
      }
    } else req.end();
  });
}

/** The response headers a client can compare between two answers (values that differ per request removed). */
const stableHeaders = (a: Answer) =>
  Object.keys(a.headers)
    .filter((h) => !['date', 'transfer-encoding', 'content-length'].includes(h))
    .sort()
    .map((h) => (h === 'x-correlation-id' ? h : `${h}: ${a.headers[h]}`));

describe('hot routes: the fast path answers as the Fastify route does', () => {
  let probe: RunningService;
  beforeAll(async () => {
    probe = await startProbe({
      envelope: () => traceEnvelope,
      providers: [ProbeHotRoutes],
      overrides: { 'Http:BodyLimitBytes': 2048 },
    });
  });
  afterAll(() => probe?.close());

  const echo = '/api/v1/probe/first%20one/echo?version=3&tag=a&tag=b';
  const headers = { 'x-tenant-id': 'acme', 'x-correlation-id': 'corr-1' };

  it('serves a JSON body of declared length on the fast path, and a chunked one through Fastify, alike', async () => {
    const body = JSON.stringify({ input: { amount: 12.5, ok: true, list: [1, 'two'] } });
    const fast = await send(probe.url, echo, { body, headers });
    const fastify = await send(probe.url, echo, { body, headers, chunked: true });
    expect(fast.body.servedBy).toBe('fast-path');
    expect(fastify.body.servedBy).toBe('fastify');
    expect(fast.status).toBe(200);
    expect(fastify.status).toBe(200);
    const { servedBy: _a, ...fastRest } = fast.body;
    const { servedBy: _b, ...fastifyRest } = fastify.body;
    expect(fastRest).toEqual(fastifyRest);
    expect(fastRest).toEqual({
      name: 'first one',
      query: { version: '3', tag: ['a', 'b'] },
      body: { input: { amount: 12.5, ok: true, list: [1, 'two'] } },
      tenantId: 'acme',
      correlationId: 'corr-1',
      ip: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/), // the client's address, on both paths
    });
    expect(stableHeaders(fast)).toEqual(stableHeaders(fastify));
    expect(fast.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(fast.headers['access-control-allow-origin']).toBe('*');
    expect(fast.headers['x-correlation-id']).toBe('corr-1');
    expect(Number(fast.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(fast.body)));
  });

  it('opens a correlation id when the caller sends none, and the default tenant', async () => {
    const answer = await send(probe.url, '/api/v1/probe/x/echo', { body: '{}' });
    expect(answer.body.servedBy).toBe('fast-path');
    expect(answer.body.tenantId).toBe('default');
    expect(answer.body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers['x-correlation-id']).toBe(answer.body.correlationId);
  });

  it.each([
    ['malformed JSON', '{"input": ', 400, 'MALFORMED_JSON'],
    ['prototype poisoning', '{"__proto__": {"admin": true}}', 400, 'FORBIDDEN_JSON_KEY'],
    ['constructor poisoning', '{"constructor": {"prototype": {"admin": true}}}', 400, 'FORBIDDEN_JSON_KEY'],
    ['escaped prototype poisoning', '{"\\u005f_proto__": {"admin": true}}', 400, 'FORBIDDEN_JSON_KEY'],
    ['escaped constructor poisoning', '{"constr\\u0075ctor": {"prototype": {}}}', 400, 'FORBIDDEN_JSON_KEY'],
    ['an AppError', '{"fail": "conflict"}', 409, 'PROBE_CONFLICT'],
    ['a rejected promise', '{"fail": "async-conflict"}', 409, 'PROBE_CONFLICT'],
    ['an unexpected error', '{"fail": "crash"}', 500, 'INTERNAL_ERROR'],
  ])('%s: the same envelope on both paths', async (_case, body, status, code) => {
    const answers: Answer[] = [];
    for (const chunked of [false, true]) {
      const answer = await send(probe.url, echo, { body, headers, chunked });
      expect(answer.status).toBe(status);
      expect(answer.body).toEqual({ error: expect.any(String), code, traceId: 'corr-1' });
      expect(answer.headers['x-correlation-id']).toBe('corr-1');
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(JSON.stringify(answer.body)).not.toContain('hunter2');
      answers.push(answer);
    }
    expect(answers[0].body).toEqual(answers[1].body);
    expect(stableHeaders(answers[0])).toEqual(stableHeaders(answers[1]));
  });

  it('reads the words and escapes that only look like poisoning, and a byte-order mark, as Fastify does', async () => {
    for (const body of [
      '{"note": "the __proto__ and constructor words in a value"}',
      '{"text": "a \\"quoted\\" \\\\ backslash"}',
      '\ufeff{"bom": true}',
    ]) {
      const answers: Answer[] = [];
      for (const chunked of [false, true])
        answers.push(await send(probe.url, echo, { body, headers, chunked }));
      expect(answers[0].status).toBe(answers[1].status);
      expect(answers[0].body.servedBy).toBe('fast-path');
      expect(answers[0].status).toBe(200);
      expect(answers[0].body.body).toEqual(answers[1].body.body);
    }
  });

  it('an error with headers keeps them (429 with Retry-After)', async () => {
    for (const chunked of [false, true]) {
      const answer = await send(probe.url, echo, { body: '{"fail":"limited"}', chunked });
      expect(answer.status).toBe(429);
      expect(answer.headers['retry-after']).toBe('7');
      expect(answer.body.code).toBe('RATE_LIMITED');
    }
  });

  it('leaves what it does not take to Fastify: other media types, oversized bodies, bad tenants, other methods', async () => {
    const plain = await send(probe.url, echo, { body: 'x=1', headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(415);
    expect(plain.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const big = await send(probe.url, echo, { body: JSON.stringify({ pad: 'x'.repeat(4096) }) });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
    const tenant = await send(probe.url, echo, { body: '{}', headers: { 'x-tenant-id': 'bad tenant!' } });
    expect(tenant.status).toBe(400);
    expect(tenant.body.code).toBe('INVALID_TENANT_ID');
    const get = await send(probe.url, echo, { method: 'GET' });
    expect(get.status).toBe(404);
    const other = await send(probe.url, '/api/v1/probe/x/echo/more', { body: '{}' });
    expect(other.status).toBe(404);
    // an empty body is no body (many clients send content-type: application/json on a bodiless POST)
    const empty = await send(probe.url, echo, { body: '' });
    expect(empty.status).toBe(200);
  });

  it.each([
    ['a literal of the same length', '/api/v1/probe/x/ecHo'],
    ['a longer literal', '/api/v1/probe/x/echoes'],
    ['a shorter path', '/api/v1/probe/x'],
  ])('only its own paths take the fast path: not %s', async (_case, path) => {
    const answer = await send(probe.url, path, { body: '{}', headers });
    expect(answer.status).toBe(404);
    expect(answer.body.servedBy).toBeUndefined();
  });

  it('a trailing slash is the same route, answered by Fastify', async () => {
    const answer = await send(probe.url, '/api/v1/probe/x/echo/', { body: '{}', headers });
    expect(answer.status).toBe(200);
    expect(answer.body.servedBy).not.toBe('fast-path');
  });

  it('an empty parameter is left to Fastify', async () => {
    const answer = await send(probe.url, '/api/v1/probe//echo', { body: '{}', headers });
    expect(answer.body.servedBy).toBe('fastify');
  });

  it('a parameter is percent-decoded; a malformed escape is left to Fastify', async () => {
    const decoded = await send(probe.url, '/api/v1/probe/a%2Fb%C3%A9/echo', { body: '{}', headers });
    expect(decoded.body).toMatchObject({ servedBy: 'fast-path', name: 'a/bé' });
    const malformed = await send(probe.url, '/api/v1/probe/%E0%A4%A/echo', { body: '{}', headers });
    expect(malformed.status).toBe(400);
    expect(malformed.body.servedBy).toBeUndefined();
  });

  it('answers many requests in flight each with its own result (responses are flushed in batches)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        send(probe.url, `/api/v1/probe/n${i}/echo`, {
          body: JSON.stringify({ i, ...(i % 3 === 0 ? { wait: i % 7 } : {}) }),
          headers: { 'x-tenant-id': `t${i % 5}`, 'x-correlation-id': `c-${i}` },
        }),
      ),
    );
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        servedBy: 'fast-path',
        name: `n${i}`,
        body: { i },
        tenantId: `t${i % 5}`,
        correlationId: `c-${i}`,
      });
      expect(answer.headers['x-correlation-id']).toBe(`c-${i}`);
    });
  });

  it('keeps serving after a client aborts a request mid-body', async () => {
    await new Promise<void>((resolve) => {
      const target = new URL(echo, probe.url);
      const req = httpRequest({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '100' },
      });
      req.on('error', () => resolve());
      req.write('{"input":');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    const answer = await send(probe.url, echo, { body: '{}' });
    expect(answer.status).toBe(200);
  });
});
