import { createTestDatabase, TestDatabase } from '@arbiter/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * `arbiter start` as users run it (all services in one process, from the build): each service's log
 * lines carry its own `service` name. Nest's logger is process-wide; before the service scopes every
 * line of every service said `"service":"identity"` (the service started last).
 */
const main = join(__dirname, '..', 'dist', 'main.js');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('arbiter start: every log line names its own service', () => {
  let child: ChildProcess;
  let stdout = '';
  const databases: TestDatabase[] = [];
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does)`);
    const db = async () => {
      const d = await createTestDatabase();
      databases.push(d);
      return d.url;
    };
    for (const name of ['control-plane', 'decisions', 'identity']) ports[name] = await freePort();
    child = spawn(process.execPath, [main, 'start', '--host', '127.0.0.1'], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        ARBITER_LOG_LEVEL: 'info',
        ARBITER_CONTROL_PLANE_PORT: String(ports['control-plane']),
        ARBITER_DECISIONS_PORT: String(ports.decisions),
        ARBITER_IDENTITY_PORT: String(ports.identity),
        ARBITER_CONSOLE_PORT: String(await freePort()),
        ConnectionStrings__RuleControlPlaneDb: await db(),
        ConnectionStrings__DecisionTablesDb: await db(),
        ConnectionStrings__LicenseDb: await db(),
        ...(process.env.TEST_NATS_URL ? { ConnectionStrings__Cache: process.env.TEST_NATS_URL } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stdout += d.toString()));
    const deadline = Date.now() + 90_000;
    while (!stdout.includes('Arbiter is running')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`did not start:\n${stdout}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exit = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exit, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    for (const d of databases) await d.drop();
  });

  const lines = () =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));

  it("tags each service's request log and start-up lines with that service", async () => {
    for (const [name, port] of Object.entries(ports)) {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/nowhere`, {
        headers: { 'x-correlation-id': `logs-${name}` },
      });
      expect(res.status).toBe(404);
    }
    await new Promise((r) => setTimeout(r, 300));
    const all = lines();
    for (const name of Object.keys(ports)) {
      const request = all.find((l) => l.msg === 'request completed' && l.correlationId === `logs-${name}`);
      expect([name, request?.service]).toEqual([name, name]);
      expect([name, all.find((l) => l.msg === `${name} listening`)?.service]).toEqual([name, name]);
    }
    // nothing a service wrote carries another's name: every line of a service's context is its own
    const byContext = new Map<string, Set<string>>();
    for (const l of all)
      if (l.correlationId?.startsWith?.('logs-'))
        byContext.set(l.correlationId, new Set([...(byContext.get(l.correlationId) ?? []), l.service]));
    expect(byContext.get('logs-control-plane')).toEqual(new Set(['control-plane']));
    expect(byContext.get('logs-decisions')).toEqual(new Set(['decisions']));
    expect(byContext.get('logs-identity')).toEqual(new Set(['identity']));
  });
});
