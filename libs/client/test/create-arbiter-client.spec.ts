import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createArbiterClient, DEFAULT_URLS } from '../src';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/**
 * A stand-in for one service: records each request, answers from `answers` by path (else 404). The test
 * harness's response check asks every local server for `/docs-json` (a 404 here: nothing to check
 * against); that request is not the client's and is not recorded.
 */
async function stubService(answers: Record<string, { status: number; body: unknown }>) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url !== '/docs-json') received.push({ method: req.method!, url: req.url!, headers: req.headers });
    const answer = answers[req.url!.split('?')[0]] ?? { status: 404, body: { error: 'not found' } };
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const table = { id: 't-1', name: 'Loan risk' };
const notFound = { error: 'Decision table t-2 not found', code: 'DECISION_TABLE_NOT_FOUND', traceId: 'x' };

describe('createArbiterClient', () => {
  let controlPlane: Awaited<ReturnType<typeof stubService>>;
  let decisions: Awaited<ReturnType<typeof stubService>>;
  let identity: Awaited<ReturnType<typeof stubService>>;

  beforeAll(async () => {
    controlPlane = await stubService({
      '/health/live': { status: 200, body: { status: 'ok' } },
      '/api/v1/control-plane/audit/chain': { status: 200, body: { entries: [], head: null } },
    });
    decisions = await stubService({
      '/api/v1/decision-tables/t-1': { status: 200, body: table },
      '/api/v1/decision-tables/t-2': { status: 404, body: notFound },
    });
    identity = await stubService({ '/health/live': { status: 200, body: { status: 'ok' } } });
  });
  afterAll(async () => {
    await Promise.all([controlPlane, decisions, identity].map((s) => s?.close()));
  });
  beforeEach(() => {
    for (const service of [controlPlane, decisions, identity]) service.received.length = 0;
  });

  const clientFor = (options: Parameters<typeof createArbiterClient>[0] = {}) =>
    createArbiterClient({
      controlPlaneUrl: `${controlPlane.url}/`,
      decisionsUrl: decisions.url,
      identityUrl: identity.url,
      ...options,
    });

  it("sends each service's operations to that service's base URL, path parameters filled in", async () => {
    const arbiter = clientFor();
    const got = await arbiter.decisions.decisionTablesGet({ path: { id: 't-1' } });
    expect(got.response?.status).toBe(200);
    expect(got.data).toEqual(table);
    expect(decisions.received.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/v1/decision-tables/t-1',
    ]);

    await arbiter.controlPlane.healthLiveness();
    await arbiter.identity.healthLiveness();
    // the trailing slash of the control plane's URL is not doubled
    expect(controlPlane.received.map((r) => r.url)).toEqual(['/health/live']);
    expect(identity.received.map((r) => r.url)).toEqual(['/health/live']);
  });

  it('returns the error body as `error` (typed by the family) and no data on a failure', async () => {
    const got = await clientFor().decisions.decisionTablesGet({ path: { id: 't-2' } });
    expect(got.response?.status).toBe(404);
    expect(got.data).toBeUndefined();
    expect(got.error).toEqual(notFound);
  });

  it('throws the error body instead with throwOnError', async () => {
    await expect(
      clientFor().decisions.decisionTablesGet({ path: { id: 't-2' }, throwOnError: true }),
    ).rejects.toEqual(notFound);
  });

  it('sends the token as a bearer credential to secured operations only', async () => {
    const arbiter = clientFor({ token: 'secret-token' });
    await arbiter.controlPlane.auditChain();
    await arbiter.controlPlane.healthLiveness();
    const [secured, open] = controlPlane.received;
    expect(secured.url).toBe('/api/v1/control-plane/audit/chain');
    expect(secured.headers.authorization).toBe('Bearer secret-token');
    expect(open.url).toBe('/health/live');
    expect(open.headers.authorization).toBeUndefined();
  });

  it('asks a token function before every request (refreshed tokens are used)', async () => {
    let issued = 0;
    const arbiter = clientFor({ token: async () => `token-${++issued}` });
    await arbiter.controlPlane.auditChain();
    await arbiter.controlPlane.auditChain();
    expect(controlPlane.received.map((r) => r.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });

  it('sends the tenant and extra headers with every request of every service', async () => {
    const arbiter = clientFor({ tenant: 'acme', headers: { 'x-actor': 'alice' } });
    await arbiter.controlPlane.healthLiveness();
    await arbiter.decisions.decisionTablesGet({ path: { id: 't-1' } });
    for (const request of [...controlPlane.received, ...decisions.received]) {
      expect(request.headers['x-tenant-id']).toBe('acme');
      expect(request.headers['x-actor']).toBe('alice');
    }
  });

  it('defaults to the URLs `npm start` serves on, and uses the fetch it is given', async () => {
    const urls: string[] = [];
    const fakeFetch = (async (input: Request | string | URL) => {
      urls.push(input instanceof Request ? input.url : String(input));
      return new Response(JSON.stringify({ status: 'ok' }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof fetch;
    const arbiter = createArbiterClient({ fetch: fakeFetch });
    await arbiter.controlPlane.healthLiveness();
    await arbiter.decisions.healthLiveness();
    await arbiter.identity.healthLiveness();
    expect(urls).toEqual([
      `${DEFAULT_URLS.controlPlane}/health/live`,
      `${DEFAULT_URLS.decisions}/health/live`,
      `${DEFAULT_URLS.identity}/health/live`,
    ]);
  });
});
