import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';

const logger = new Logger('Database');

/**
 * The embedded server's thread: PGlite (PostgreSQL compiled to WASM) behind pglite-socket's wire-protocol
 * server on a Unix socket. Plain CommonJS run with `eval`, so it needs no build step of its own (the same
 * under Jest's TypeScript transform as from `dist`); the packages are resolved by the caller.
 */
const SERVER_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglite);
const { PGLiteSocketServer } = require(workerData.pgliteSocket);
(async () => {
  const options = { pgliteWasmModule: workerData.pgliteWasmModule, initdbWasmModule: workerData.initdbWasmModule };
  if (workerData.pgvector) options.extensions = { vector: require(workerData.pgvector).vector };
  const db = await PGlite.create(workerData.dataDir ? { ...options, dataDir: workerData.dataDir } : options);
  const server = new PGLiteSocketServer({ db, path: workerData.socketPath, maxConnections: workerData.maxConnections });
  await server.start();
  parentPort.on('message', async (message) => {
    if (message !== 'stop') return;
    await server.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
    parentPort.postMessage({ stopped: true });
  });
  parentPort.postMessage({ ready: true });
})().catch((error) => parentPort.postMessage({ failed: String((error && error.stack) || error) }));
`;

/** pgvector for PGlite (`CREATE EXTENSION vector` then works, HNSW included), when installed. */
function optionalResolve(name: string): string | null {
  try {
    return require.resolve(name);
  } catch {
    return null;
  }
}

/** A compiled `WebAssembly.Module` (the library's TypeScript setup has no DOM/WebAssembly typings). */
type WasmModule = object;
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> };
};
let modules: Promise<{ pgliteWasmModule: WasmModule; initdbWasmModule: WasmModule }> | undefined;

/** PGlite's two WASM modules, compiled once per process and shared with every server thread. */
function compiledModules() {
  const compile = (file: string) =>
    readFile(join(dirname(require.resolve('@electric-sql/pglite')), file)).then((bytes) =>
      wasm.compile(bytes),
    );
  modules ??= Promise.all([compile('pglite.wasm'), compile('initdb.wasm')]).then(
    ([pgliteWasmModule, initdbWasmModule]) => ({ pgliteWasmModule, initdbWasmModule }),
  );
  return modules;
}

/**
 * An embedded PostgreSQL (PGlite, WASM) served over a private Unix socket, so the application talks to
 * it through the same `pg` driver and TypeORM path as to a real server. The database runs on a thread of
 * its own, as a server would in its own process: its work (every statement is WASM) never blocks the
 * service's event loop. pglite-socket serialises whole transactions on its single backend;
 * `maxConnections` is raised so a pool can connect.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly thread: Worker,
    private readonly socketDir: string,
  ) {}

  static async start(
    dataDir: string | null,
    maxConnections = 64,
    extensions: readonly 'vector'[] = [],
  ): Promise<EmbeddedPostgres> {
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    const { pgliteWasmModule, initdbWasmModule } = await compiledModules();
    const socketDir = mkdtempSync(join(tmpdir(), 'arbiter-pg-'));
    const thread = new Worker(SERVER_THREAD, {
      eval: true,
      workerData: {
        pglite: require.resolve('@electric-sql/pglite'),
        pgliteWasmModule,
        initdbWasmModule,
        pgliteSocket: require.resolve('@electric-sql/pglite-socket'),
        pgvector: extensions.includes('vector') ? optionalResolve('@electric-sql/pglite-pgvector') : null,
        dataDir,
        socketPath: join(socketDir, '.s.PGSQL.5432'),
        maxConnections,
      },
    });
    let onError: (error: Error) => void = () => undefined;
    let onExit: (code: number) => void = () => undefined;
    let onMessage: (message: { ready?: boolean; failed?: string }) => void = () => undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        onError = reject;
        onExit = (code) => reject(new Error(`embedded PostgreSQL thread exited (${code})`));
        onMessage = (message) =>
          message.ready ? resolve() : reject(new Error(`embedded PostgreSQL failed: ${message.failed}`));
        thread.on('error', onError).on('exit', onExit).on('message', onMessage);
      });
    } catch (error) {
      await thread.terminate();
      rmSync(socketDir, { recursive: true, force: true });
      throw error;
    } finally {
      thread.off('error', onError).off('exit', onExit).off('message', onMessage);
    }
    thread.on('error', (error) =>
      logger.error({ msg: 'embedded PostgreSQL thread failed', err: String(error) }),
    );
    return new EmbeddedPostgres(thread, socketDir);
  }

  /** `pg` connection options for the socket. */
  get connectionOptions() {
    return { host: this.socketDir, port: 5432, username: 'postgres', database: 'postgres' };
  }

  /** Closes the server and the database (a data directory is left consistent), then ends the thread. */
  async stop(): Promise<void> {
    const stopped = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      this.thread.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      this.thread.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.thread.postMessage('stop');
    await stopped;
    await this.thread.terminate();
    rmSync(this.socketDir, { recursive: true, force: true });
  }
}
