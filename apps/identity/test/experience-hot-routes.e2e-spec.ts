import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { request as httpRequest } from 'node:http';
import { identityService } from '../src';

const TOKEN = 'experience-token-hot-routes-0123456789';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One request with Node's client. `chunked` sends the body without a content length: the hot route's fast
 * path leaves such a request to its Fastify route, so the two paths can be compared answer for answer.
 */
function send(base: string, path: string, body: string, headers: Record<string, string>, chunked: boolean) {
  const target = new URL(path, base);
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        );
      },
    );
    req.on('error', reject);
    if (chunked) {
      req.setHeader('transfer-encoding', 'chunked');
      req.write(body.slice(0, 3));
      req.end(body.slice(3));
    } else {
      req.setHeader('content-length', Buffer.byteLength(body));
      req.end(body);
    }
  });
}

/** The answer without what differs per request (timestamps, correlation ids). */
const comparable = (a: Answer) => ({
  status: a.status,
  body:
    a.body && typeof a.body === 'object'
      ? { ...a.body, timestamp: a.body.timestamp && 'T', judgeJobId: a.body.judgeJobId && 'ID' }
      : a.body,
  type: a.headers['content-type'],
  cors: a.headers['access-control-allow-origin'],
  retryAfter: a.headers['retry-after'] !== undefined,
});

describe('experience hot routes: intercept and posttool answer alike on the fast path and through Fastify', () => {
  let sut: ServiceUnderTest;
  const auth = { authorization: `Bearer ${TOKEN}` };
  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: {
        'Experience:ServerAuthToken': TOKEN,
        'Experience:RateLimitPerMinute': 6,
        'Experience:RateLimitPerMinuteWithToken': 14,
        'Experience:JudgeEnabled': false,
        'Experience:FileStoreDir': `/tmp/arbiter-exp-hot-${process.pid}`,
      },
    });
  }, 120_000);
  afterAll(() => sut?.stop());

  const both = async (path: string, body: unknown, headers: Record<string, string>) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const fast = await send(sut.url, path, text, headers, false);
    const fastify = await send(sut.url, path, text, headers, true);
    expect(comparable(fast)).toEqual(comparable(fastify));
    return fast;
  };

  it('a success: intercept 200 `{ suggestions, hasSuggestions }`, posttool 202 `{ judgeJobId }`', async () => {
    const hit = await both('/api/intercept', { toolName: 'Bash', toolInput: { command: 'ls' } }, auth);
    expect(hit.status).toBe(200);
    expect(hit.body).toEqual({ suggestions: null, hasSuggestions: false });
    const queued = await both(
      '/api/posttool',
      {
        toolName: 'Bash',
        toolInput: { command: 'ls' },
        outcome: { success: true, error: null, duration_ms: 4 },
      },
      auth,
    );
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ judgeJobId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('401 without or with a wrong token, in the experience error body', async () => {
    const missing = await both('/api/intercept', { toolName: 'Bash', toolInput: {} }, {});
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      error: expect.any(String),
      code: 'EXPERIENCE_TOKEN_MISSING',
      timestamp: expect.any(String),
    });
    const wrong = await both('/api/posttool', { toolName: 'Bash' }, { authorization: 'Bearer nope' });
    expect(wrong.body.code).toBe('EXPERIENCE_TOKEN_INVALID');
  });

  it('validation: the platform pipe on the DTOs (unknown fields stripped, nested outcome checked), JSON errors', async () => {
    const bad = await both('/api/intercept', { toolName: '', toolInput: 'x' }, auth);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    const outcome = await both(
      '/api/posttool',
      { toolName: 'Bash', toolInput: {}, outcome: { success: 'yes', error: null, duration_ms: 1 } },
      auth,
    );
    expect(outcome.status).toBe(400);
    expect(outcome.body.error).toMatch(/outcome\.success/);
    const notJson = await both('/api/intercept', '{"toolName": ', auth);
    expect(notJson.status).toBe(400);
    expect(Object.keys(notJson.body).sort()).toEqual(['code', 'error', 'timestamp']);
  });

  it('rate limit per client address, shared with the Nest routes: 429 with Retry-After on both paths', async () => {
    // 14 with the token, 8 used above (a body that is not JSON is refused before the door, on both paths as
    // by Nest): a Nest route (/api/stats) spends the rest of the same budget
    const nest: number[] = [];
    for (let i = 0; i < 7; i++) nest.push((await fetch(`${sut.url}/api/stats`, { headers: auth })).status);
    expect(nest).toEqual([200, 200, 200, 200, 200, 200, 429]);
    const limited = await both('/api/intercept', { toolName: 'Bash', toolInput: {} }, auth);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // the anonymous budget (failed attempts count) is its own: 6, of which the four 401s above (two calls, each on both paths) used 4
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(sut.url, '/api/posttool', '{}', {}, false)).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
  });
});
