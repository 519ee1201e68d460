import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * The deployable as operations see it: a real process started from its build (`node dist/main.js`,
 * built by turbo's ^build before these tests), JSON logs, OpenTelemetry export when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, and a graceful exit 0 on SIGTERM.
 */
const main = join(__dirname, '..', '..', 'control-plane', 'dist', 'main.js');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('control-plane process', () => {
  let child: ChildProcess;
  let collector: Server;
  const exported: { path: string; bytes: number }[] = [];
  let stdout = '';
  let port = 0;

  beforeAll(async () => {
    if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first (npm test does)`);
    collector = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        exported.push({ path: req.url ?? '', bytes });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const collectorPort = (collector.address() as AddressInfo).port;
    port = await freePort();
    child = spawn(process.execPath, [main], {
      cwd: join(__dirname, '..', '..', 'control-plane'),
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        ARBITER_LOG_LEVEL: 'info',
        Http__Port: String(port),
        Http__Host: '127.0.0.1',
        ConnectionStrings__RuleControlPlaneDb: 'pglite://memory',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stdout += d.toString()));
    const deadline = Date.now() + 30_000;
    while (!stdout.includes('control-plane listening')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`did not start:\n${stdout}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await new Promise((r) => collector?.close(r));
  });

  it('writes structured JSON logs carrying the correlation id', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/nowhere`, {
      headers: { 'x-correlation-id': 'ops-corr-1' },
    });
    expect(res.status).toBe(404);
    await new Promise((r) => setTimeout(r, 100));
    const lines = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.find((l) => l.msg === 'request completed' && l.statusCode === 404)).toMatchObject({
      level: 'info',
      method: 'GET',
      url: '/api/v1/nowhere',
      correlationId: 'ops-corr-1',
    });
    expect(lines.find((l) => l.msg === 'control-plane listening')).toMatchObject({
      level: 'info',
      service: 'control-plane',
      time: expect.any(String),
    });
  });

  it('exports traces when OTEL_EXPORTER_OTLP_ENDPOINT is set, and exits 0 on SIGTERM after draining', async () => {
    for (let i = 0; i < 3; i++)
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/info`)).status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(stdout).toContain('SIGTERM: draining in-flight requests and closing');
    expect(stdout).toContain('closed pglite://memory');
    const traces = exported.filter((e) => e.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.reduce((n, t) => n + t.bytes, 0)).toBeGreaterThan(100);
  });
});
