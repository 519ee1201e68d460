import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface TestDatabase {
  /** Connection string for the app under test. */
  url: string;
  /** Drops the database (PostgreSQL) — a no-op for embedded. */
  drop(): Promise<void>;
  kind: 'postgres' | 'pglite';
}

/**
 * A fresh, empty database per test suite: with `TEST_DATABASE_URL` set, a new database on that
 * PostgreSQL server (created and dropped here); otherwise an in-memory PGlite.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = process.env.TEST_DATABASE_URL?.trim();
  if (!server) return { url: 'pglite://memory', kind: 'pglite', drop: async () => undefined };
  const name = `arbiter_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'postgres',
    drop: async () => {
      const c = new Client({ connectionString: server });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** `TEST_NATS_URL` when set (CI runs against the real server), else the in-process bus. */
export function testCacheConnectionString(): string {
  return process.env.TEST_NATS_URL?.trim() ?? '';
}
