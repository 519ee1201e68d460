import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleBuilt, RunningConsole, startConsole } from '../src';

/** An upstream that echoes what reached it: the proxy must forward path, query, headers and body unchanged. */
function echoServer(name: string): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ name, method: req.method, url: req.url, headers: req.headers, body }));
      });
    }).listen(0, '127.0.0.1', () => resolve(server));
  });
}
const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

describe('console server: the built app and one origin for the three services', () => {
  let upstreams: Server[];
  let consoleServer: RunningConsole;

  beforeAll(async () => {
    if (!consoleBuilt()) throw new Error('apps/console is not built: run `npm run build` first');
    upstreams = await Promise.all(['control-plane', 'decisions', 'identity'].map(echoServer));
    consoleServer = await startConsole({
      port: 0,
      targets: {
        controlPlane: urlOf(upstreams[0]),
        decisions: urlOf(upstreams[1]),
        identity: urlOf(upstreams[2]),
      },
      authenticated: { controlPlane: true, decisions: false },
    });
  });

  afterAll(async () => {
    await consoleServer?.close();
    for (const s of upstreams ?? []) await new Promise((r) => s.close(r));
  });

  it('serves the app shell at / and for client routes, and its runtime configuration', async () => {
    for (const path of ['/', '/approvals']) {
      const res = await fetch(`${consoleServer.url}${path}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      // the built shell (vite rewrote the entry into hashed assets), not web/index.html's source
      expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    }
    const config = await fetch(`${consoleServer.url}/console-config.json`).then(
      (r) => r.json() as Promise<any>,
    );
    expect(config).toEqual({
      prefixes: {
        controlPlane: '/svc/control-plane',
        decisions: '/svc/decisions',
        identity: '/svc/identity',
      },
      authenticated: { controlPlane: true, decisions: false },
    });
  });

  it('forwards each prefix to its service with the prefix removed, headers and body unchanged', async () => {
    const res = await fetch(
      `${consoleServer.url}/svc/decisions/api/v1/decision-tables/t1/evaluate?version=2`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme', authorization: 'Bearer abc' },
        body: JSON.stringify({ input: { age: 30 } }),
      },
    );
    const seen = (await res.json()) as any;
    expect(seen).toMatchObject({
      name: 'decisions',
      method: 'POST',
      url: '/api/v1/decision-tables/t1/evaluate?version=2',
      body: '{"input":{"age":30}}',
    });
    expect(seen.headers).toMatchObject({
      'x-tenant-id': 'acme',
      authorization: 'Bearer abc',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
    });
    const identity = (await fetch(`${consoleServer.url}/svc/identity/api/v1/auth/login`).then((r) =>
      r.json(),
    )) as any;
    expect(identity).toMatchObject({ name: 'identity', url: '/api/v1/auth/login' });
    const cp = (await fetch(`${consoleServer.url}/svc/control-plane/api/v1/info`).then((r) =>
      r.json(),
    )) as any;
    expect(cp).toMatchObject({ name: 'control-plane', url: '/api/v1/info' });
  });

  it('answers 404 with a code for a service that does not exist, never the app shell', async () => {
    const res = await fetch(`${consoleServer.url}/svc/nowhere/api/v1/info`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
  });

  it('refuses to start without a built app, naming the missing file', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'console-unbuilt-'));
    await expect(
      startConsole({
        port: 0,
        webRoot: empty,
        targets: {
          controlPlane: 'http://127.0.0.1:1',
          decisions: 'http://127.0.0.1:1',
          identity: 'http://127.0.0.1:1',
        },
      }),
    ).rejects.toThrow(/index\.html is missing/);
  });
});
