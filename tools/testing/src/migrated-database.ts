import { Database, EntityClass, MigrationClass, parseConnectionString, UnitOfWork } from '@arbiter/platform';
import { createTestDatabase } from './test-database';

/** A fresh database with the app's migrations, for the repositories' medium tests. */
export interface MigratedDatabase {
  uow: UnitOfWork;
  /** Statements as the migration owner (no row-level security): to look behind the application role. */
  database: Database;
  stop(): Promise<void>;
}

/**
 * PGlite in memory by default, a new PostgreSQL database with TEST_DATABASE_URL, migrated as the service
 * migrates at start; units of work run as the application role, so row-level security applies.
 */
export async function startMigratedDatabase(
  entities: EntityClass[],
  migrations: MigrationClass[],
): Promise<MigratedDatabase> {
  const target = await createTestDatabase();
  const database = await Database.start({
    name: 'repository-test',
    target: parseConnectionString(target.url, 'repository-test'),
    entities,
    migrations,
    applicationRole: 'arbiter_app',
    poolSize: 4,
  });
  return {
    uow: new UnitOfWork(database),
    database,
    stop: async () => {
      await database.stop();
      await target.drop();
    },
  };
}
