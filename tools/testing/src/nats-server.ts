import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the NATS server binary is looked for (`NATS_SERVER_BIN` first). */
const CANDIDATES = ['/usr/sbin/nats-server', '/usr/local/bin/nats-server', '/usr/bin/nats-server'];

export interface OwnNatsServer {
  /** `nats://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The JetStream store directory (kept across `stop`/`start`, removed by `dispose`). */
  storeDir: string;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store, and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes the store directory. */
  dispose(): Promise<void>;
}

/** The nats-server binary of this machine, or null (the tests that need one then skip). */
export function natsServerBinary(): string | null {
  const configured = process.env.NATS_SERVER_BIN;
  if (configured) return existsSync(configured) ? configured : null;
  return CANDIDATES.find((c) => existsSync(c)) ?? null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A NATS server of the test's own (JetStream on, a temporary store, a free port on 127.0.0.1), for
 * tests that take NATS down and bring it back. Never the shared one of TEST_NATS_URL.
 */
export async function startOwnNatsServer(binary = natsServerBinary()): Promise<OwnNatsServer> {
  if (!binary) throw new Error('no nats-server binary (set NATS_SERVER_BIN)');
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'arbiter-nats-'));
  let child: ChildProcess | null = null;
  const start = async () => {
    if (child) return;
    const started = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
      stdio: 'ignore',
    });
    child = started;
    started.once('exit', () => {
      if (child === started) child = null;
    });
    await waitForPort(port, 15_000);
  };
  const stop = async () => {
    const running = child;
    if (!running) return;
    const gone = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
    child = null;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    start,
    stop,
    dispose: async () => {
      await stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
