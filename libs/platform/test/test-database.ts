import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * The fresh database of the row-level-security proof. The services' tests take theirs from `@arbiter/testing`
 * (tools/testing), which depends on this library: importing it here would make a build cycle, so the platform's
 * own tests keep this copy of its `createTestDatabase`.
 */
export interface TestDatabase {
  /** Connection string for the code under test. */
  url: string;
  /** Drops the database (PostgreSQL) — a no-op for embedded. */
  drop(): Promise<void>;
}

/**
 * A fresh, empty database per test suite: with `TEST_DATABASE_URL` set, a new database on that
 * PostgreSQL server (created and dropped here); otherwise an in-memory PGlite.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = process.env.TEST_DATABASE_URL?.trim();
  if (!server) return { url: 'pglite://memory', drop: async () => undefined };
  const name = `arbiter_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await runAsAdmin(server, `CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => runAsAdmin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function runAsAdmin(server: string, statement: string): Promise<void> {
  const admin = new Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
