import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EmbeddedPostgres } from './embedded-postgres';
import { DatabaseTarget, redact } from './connection-string';
import type { EmbeddedExtension, EntityClass, MigrationClass } from './database.settings';
import { setMigrationApplicationRole } from './database.settings';
import { assertIdentifier } from './tenant-isolation';

/**
 * Replicas start together: on PostgreSQL a session advisory lock lets one of them migrate while the
 * others wait, then find nothing left to do. (An embedded database has a single process.)
 */
async function runMigrationsExclusively(dataSource: DataSource, shared: boolean): Promise<void> {
  if (!shared) {
    await dataSource.runMigrations({ transaction: 'all' });
    return;
  }
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query(`SELECT pg_advisory_lock(hashtext('arbiter:migrations'))`);
    await dataSource.runMigrations({ transaction: 'all' });
  } finally {
    await runner.query(`SELECT pg_advisory_unlock(hashtext('arbiter:migrations'))`).catch(() => undefined);
    await runner.release();
  }
}

export interface DatabaseStartOptions {
  target: DatabaseTarget;
  entities: EntityClass[];
  migrations: MigrationClass[];
  applicationRole: string;
  poolSize: number;
  name: string;
  embeddedExtensions?: EmbeddedExtension[];
}

/**
 * The database of one service: a TypeORM DataSource over `pg`, either to a real PostgreSQL or to the
 * embedded PGlite socket. Migrations run at start (never `synchronize`).
 */
/** The part of node-postgres' pool `preparedQuery` uses. */
interface PreparedQueryPool {
  query<R>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

export class Database {
  private readonly logger = new Logger('Database');

  private constructor(
    readonly dataSource: DataSource,
    readonly applicationRole: string,
    readonly description: string,
    private readonly embedded: EmbeddedPostgres | null,
  ) {}

  /**
   * Whether this is the embedded PGlite server. Its socket serves one backend to the pool's connections and
   * keeps a transaction to itself, but not a lone statement: an autocommit statement (`dataSource.query`)
   * of one connection can interleave with another's there. Code that runs single statements outside a
   * transaction for speed on PostgreSQL wraps them in one on PGlite.
   */
  get isEmbedded(): boolean {
    return this.embedded !== null;
  }

  /**
   * One statement in autocommit on the pool, prepared under `name` once per pooled connection: PostgreSQL
   * plans it once instead of on every call (for a hot path whose statement is a CTE of several writes,
   * planning costs more than running it). No transaction and no role or tenant context (`UnitOfWork` sets
   * those): for service-wide tables without row-level security only. On the embedded PGlite the statement
   * runs in a transaction of its own (see `isEmbedded`).
   */
  async preparedQuery<R>(name: string, text: string, values: unknown[]): Promise<R[]> {
    if (this.embedded) return this.dataSource.transaction((m) => m.query(text, values) as Promise<R[]>);
    const pool = (this.dataSource.driver as unknown as { master: PreparedQueryPool }).master;
    return (await pool.query<R>({ name, text, values })).rows;
  }

  static async start(options: DatabaseStartOptions): Promise<Database> {
    assertIdentifier(options.applicationRole, 'Database:ApplicationRole');
    const embedded =
      options.target.kind === 'pglite'
        ? await EmbeddedPostgres.start(options.target.dataDir, 64, options.embeddedExtensions ?? [])
        : null;
    const connection = embedded
      ? { ...embedded.connectionOptions }
      : { url: (options.target as { url: string }).url };
    const dataSource = new DataSource({
      type: 'postgres',
      ...connection,
      entities: options.entities,
      migrations: options.migrations,
      migrationsTableName: 'schema_migrations',
      synchronize: false,
      migrationsRun: false,
      logging: false,
      extra: { max: options.poolSize, connectionTimeoutMillis: 10_000 },
    });
    const description =
      options.target.kind === 'pglite'
        ? `pglite://${options.target.dataDir ?? 'memory'}`
        : redact(options.target.url);
    try {
      await dataSource.initialize();
      setMigrationApplicationRole(options.applicationRole);
      await runMigrationsExclusively(dataSource, options.target.kind === 'postgres');
    } catch (error) {
      if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
      await embedded?.stop();
      throw new Error(
        `Database ${options.name} (${description}) could not start: ${(error as Error).message}`,
      );
    }
    return new Database(dataSource, options.applicationRole, description, embedded);
  }

  /** Cheap liveness probe with a deadline, for /health. */
  async ping(timeoutMs = 2000): Promise<boolean> {
    if (!this.dataSource.isInitialized) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      });
      await Promise.race([this.dataSource.query('SELECT 1'), deadline]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
    this.logger.log(`closed ${this.description}`);
  }
}
