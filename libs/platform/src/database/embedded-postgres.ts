import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * An embedded PostgreSQL (PGlite, WASM) served over a private Unix socket, so the application talks to
 * it through the same `pg` driver and TypeORM path as to a real server. pglite-socket serialises whole
 * transactions on its single backend; `maxConnections` is raised so a pool can connect.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly socketDir: string,
  ) {}

  static async start(dataDir: string | null, maxConnections = 64): Promise<EmbeddedPostgres> {
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    const db = dataDir ? await PGlite.create(dataDir) : await PGlite.create();
    const socketDir = mkdtempSync(join(tmpdir(), 'arbiter-pg-'));
    const server = new PGLiteSocketServer({ db, path: join(socketDir, '.s.PGSQL.5432'), maxConnections });
    await server.start();
    return new EmbeddedPostgres(db, server, socketDir);
  }

  /** `pg` connection options for the socket. */
  get connectionOptions() {
    return { host: this.socketDir, port: 5432, username: 'postgres', database: 'postgres' };
  }

  async stop(): Promise<void> {
    await this.server.stop().catch(() => undefined);
    await this.db.close().catch(() => undefined);
    rmSync(this.socketDir, { recursive: true, force: true });
  }
}
