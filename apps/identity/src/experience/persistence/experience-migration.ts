import { enableTenantIsolation, grantTableAccess, migrationApplicationRole } from '@arbiter/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** The local embedder's default dimension: its HNSW index is created with the tables. */
export const DEFAULT_HNSW_DIMENSION = 256;

/** `true` when the server can load pgvector (PGlite with its extension; a server with it packaged). */
export async function vectorExtensionAvailable(runner: { query(sql: string): Promise<unknown> }) {
  const rows = (await runner.query(
    `SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`,
  )) as unknown[];
  return rows.length > 0;
}

/** The HNSW index of one dimension (a partial expression index: entries of other dimensions are skipped). */
export function hnswIndexSql(dimension: number): string {
  const d = Math.trunc(dimension);
  return `CREATE INDEX IF NOT EXISTS ix_experience_entries_hnsw_${d} ON experience_entries
    USING hnsw ((embedding_v::vector(${d})) vector_cosine_ops) WHERE dimension = ${d}`;
}

/**
 * The experience service's tables (spec 3 part C), all tenant tables under row-level security:
 * collections (the embedding dimension recorded per collection), entries (lessons, principles, past
 * tasks; the vector as float32 `bytea` always and as pgvector `vector` with HNSW indexes where the extension
 * exists), graph edges, timeline events, verdicts, interceptions, and the judge's durable job queue.
 */
export class ExperienceService1732060000400 implements MigrationInterface {
  name = 'ExperienceService1732060000400';

  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    const tenant = `tenant_id text NOT NULL DEFAULT current_setting('app.tenant_id', true)`;
    const vector = await vectorExtensionAvailable(runner);
    if (vector) await runner.query(`CREATE EXTENSION IF NOT EXISTS vector`);
    await runner.query(`
      CREATE TABLE experience_collections (
        ${tenant},
        name text NOT NULL,
        dimension integer NOT NULL CHECK (dimension > 0),
        provider text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, name)
      )`);
    await runner.query(`
      CREATE TABLE experience_entries (
        id uuid PRIMARY KEY,
        ${tenant},
        collection text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('lesson', 'principle', 'task')),
        pattern text NOT NULL,
        text text NOT NULL,
        tier text NOT NULL CHECK (tier IN ('T0', 'T1', 'T2', 'T3')),
        confidence real NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
        workspace text,
        tool_name text,
        agent text,
        session_id text,
        tags text[] NOT NULL DEFAULT '{}',
        keywords text[] NOT NULL DEFAULT '{}',
        source_examples text[] NOT NULL DEFAULT '{}',
        meta jsonb NOT NULL DEFAULT '{}',
        source text NOT NULL DEFAULT 'extracted',
        dimension integer NOT NULL,
        embedding bytea NOT NULL CHECK (length(embedding) = 4 * dimension),
        ${vector ? 'embedding_v vector,' : ''}
        followed integer NOT NULL DEFAULT 0,
        ignored integer NOT NULL DEFAULT 0,
        irrelevant integer NOT NULL DEFAULT 0,
        superseded_by uuid,
        archived_reason text,
        exported boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (tenant_id, collection) REFERENCES experience_collections (tenant_id, name)
      )`);
    await runner.query(
      `CREATE INDEX ix_experience_entries_active ON experience_entries (tenant_id, collection, status)`,
    );
    await runner.query(
      `CREATE INDEX ix_experience_entries_updated ON experience_entries (tenant_id, updated_at)`,
    );
    if (vector) await runner.query(hnswIndexSql(DEFAULT_HNSW_DIMENSION));
    await runner.query(`
      CREATE TABLE experience_edges (
        ${tenant},
        from_id uuid NOT NULL REFERENCES experience_entries (id) ON DELETE CASCADE,
        to_id uuid NOT NULL REFERENCES experience_entries (id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('generalizes', 'relates-to', 'supersedes')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (from_id, to_id, type)
      )`);
    await runner.query(`CREATE INDEX ix_experience_edges_to ON experience_edges (to_id)`);
    await runner.query(`
      CREATE TABLE experience_events (
        id bigserial PRIMARY KEY,
        ${tenant},
        entry_id uuid NOT NULL,
        type text NOT NULL CHECK (type IN ('extracted', 'promoted', 'abstracted', 'supersedes')),
        text text NOT NULL,
        tier text,
        payload jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await runner.query(`CREATE INDEX ix_experience_events_time ON experience_events (tenant_id, created_at)`);
    await runner.query(`
      CREATE TABLE experience_verdicts (
        id bigserial PRIMARY KEY,
        ${tenant},
        entry_id uuid NOT NULL,
        collection text NOT NULL,
        verdict text NOT NULL CHECK (verdict IN ('followed', 'ignored', 'irrelevant')),
        origin text NOT NULL CHECK (origin IN ('feedback', 'judge')),
        session_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE experience_interceptions (
        id bigserial PRIMARY KEY,
        ${tenant},
        session_id text,
        workspace text,
        tool_name text NOT NULL,
        suggested_ids uuid[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE experience_judge_jobs (
        id uuid PRIMARY KEY,
        ${tenant},
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'done', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        result jsonb,
        judge text,
        created_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX ix_experience_judge_queued ON experience_judge_jobs (created_at) WHERE status = 'queued'`,
    );
    for (const table of [
      'experience_collections',
      'experience_entries',
      'experience_edges',
      'experience_events',
      'experience_verdicts',
      'experience_interceptions',
      'experience_judge_jobs',
    ]) {
      await enableTenantIsolation(runner, table, role);
    }
    await grantTableAccess(runner, 'experience_events', role);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of [
      'experience_judge_jobs',
      'experience_interceptions',
      'experience_verdicts',
      'experience_events',
      'experience_edges',
      'experience_entries',
      'experience_collections',
    ]) {
      await runner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
