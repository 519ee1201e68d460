import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

export type Tier = 'T0' | 'T1' | 'T2' | 'T3';
export type EntryKind = 'lesson' | 'principle' | 'task';
export type Verdict = 'followed' | 'ignored' | 'irrelevant';
export type EdgeType = 'generalizes' | 'relates-to' | 'supersedes';
export type EventType = 'extracted' | 'promoted' | 'abstracted' | 'supersedes';

export interface EntryRow {
  id: string;
  tenant_id: string;
  collection: string;
  kind: EntryKind;
  pattern: string;
  text: string;
  tier: Tier;
  confidence: number;
  status: 'active' | 'archived';
  workspace: string | null;
  tool_name: string | null;
  agent: string | null;
  session_id: string | null;
  tags: string[];
  keywords: string[];
  source_examples: string[];
  meta: Record<string, unknown>;
  source: string;
  dimension: number;
  /** float32, little-endian (`vectorOf` reads it). */
  embedding: Buffer;
  followed: number;
  ignored: number;
  irrelevant: number;
  superseded_by: string | null;
  archived_reason: string | null;
  exported: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface NewEntry {
  id: string;
  collection: string;
  kind: EntryKind;
  pattern: string;
  text: string;
  tier: Tier;
  confidence: number;
  workspace?: string | null;
  toolName?: string | null;
  agent?: string | null;
  sessionId?: string | null;
  tags?: string[];
  keywords: string[];
  sourceExamples?: string[];
  meta?: Record<string, unknown>;
  source?: string;
  embedding: Float32Array;
}

export interface CollectionRow {
  name: string;
  dimension: number;
  provider: string;
}

export interface EventRow {
  id: string;
  entry_id: string;
  type: EventType;
  text: string;
  tier: Tier | null;
  payload: Record<string, unknown>;
  created_at: Date;
}

export interface JudgeJobRow {
  id: string;
  tenant_id: string;
  payload: Record<string, unknown>;
  attempts: number;
  created_at: Date;
}

const ENTRY_COLUMNS = `id, tenant_id, collection, kind, pattern, text, tier, confidence, status, workspace, tool_name,
  agent, session_id, tags, keywords, source_examples, meta, source, dimension, embedding, followed, ignored,
  irrelevant, superseded_by, archived_reason, exported, created_at, updated_at`;

/** The stored form of a vector: float32 little-endian bytes (decoding 10,000 of them takes milliseconds). */
export function vectorBytes(v: Float32Array): Buffer {
  const out = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i], i * 4);
  return out;
}

/** A stored vector back as a Float32Array. */
export function vectorOf(bytes: Buffer): Float32Array {
  const v = new Float32Array(bytes.length / 4);
  for (let i = 0; i < v.length; i++) v[i] = bytes.readFloatLE(i * 4);
  return v;
}

/** A vector literal pgvector reads (`[0.1,0.2,…]`). */
export const vectorLiteral = (v: ArrayLike<number>) => `[${Array.from(v).join(',')}]`;

/** An entry's column values in the order of the insert's column list (the pgvector column apart). */
function entryValues(e: NewEntry): unknown[] {
  return [
    e.id,
    e.collection,
    e.kind,
    e.pattern,
    e.text,
    e.tier,
    e.confidence,
    e.workspace ?? null,
    e.toolName ?? null,
    e.agent ?? null,
    e.sessionId ?? null,
    e.tags ?? [],
    e.keywords,
    e.sourceExamples ?? [],
    JSON.stringify(e.meta ?? {}),
    e.source ?? 'extracted',
    e.embedding.length,
    vectorBytes(e.embedding),
  ];
}

/** Every statement of the experience tables (entries, collections, edges, timeline, verdicts, queue). */
@Injectable()
export class ExperienceRepository {
  /** Records the collection's dimension on first use; returns the recorded row (to check against). */
  async ensureCollection(
    m: EntityManager,
    name: string,
    dimension: number,
    provider: string,
  ): Promise<CollectionRow> {
    await m.query(
      `INSERT INTO experience_collections (name, dimension, provider) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id, name) DO NOTHING`,
      [name, dimension, provider],
    );
    const rows: CollectionRow[] = await m.query(
      `SELECT name, dimension, provider FROM experience_collections WHERE name = $1`,
      [name],
    );
    return rows[0];
  }

  collections(m: EntityManager): Promise<(CollectionRow & { entries: number })[]> {
    return m.query(
      `SELECT c.name, c.dimension, c.provider,
              (SELECT count(*)::int FROM experience_entries e WHERE e.collection = c.name AND e.status = 'active') AS entries
       FROM experience_collections c ORDER BY c.name`,
    );
  }

  async collection(m: EntityManager, name: string): Promise<CollectionRow | null> {
    const rows: CollectionRow[] = await m.query(
      `SELECT name, dimension, provider FROM experience_collections WHERE name = $1`,
      [name],
    );
    return rows[0] ?? null;
  }

  async insertEntry(m: EntityManager, e: NewEntry, withVectorColumn: boolean): Promise<void> {
    await this.insertEntries(m, [e], withVectorColumn);
  }

  /**
   * Entries in multi-row inserts (500 a statement): one extracted lesson, or a store seeded in bulk
   * (`Knowledge.seed`).
   */
  async insertEntries(m: EntityManager, entries: NewEntry[], withVectorColumn: boolean): Promise<void> {
    const width = withVectorColumn ? 19 : 18;
    for (let start = 0; start < entries.length; start += 500) {
      const chunk = entries.slice(start, start + 500);
      const params: unknown[] = [];
      const rows = chunk.map((e, r) => {
        params.push(...entryValues(e));
        if (withVectorColumn) params.push(vectorLiteral(e.embedding));
        const at = r * width;
        const slots = Array.from({ length: width }, (_, i) => `$${at + i + 1}`);
        if (withVectorColumn) slots[18] += '::vector';
        return `(${slots.join(', ')})`;
      });
      await m.query(
        `INSERT INTO experience_entries (id, collection, kind, pattern, text, tier, confidence, workspace, tool_name,
           agent, session_id, tags, keywords, source_examples, meta, source, dimension, embedding
           ${withVectorColumn ? ', embedding_v' : ''})
         VALUES ${rows.join(', ')}`,
        params,
      );
    }
  }

  async byId(m: EntityManager, id: string): Promise<EntryRow | null> {
    const rows: EntryRow[] = await m.query(`SELECT ${ENTRY_COLUMNS} FROM experience_entries WHERE id = $1`, [
      id,
    ]);
    return rows[0] ?? null;
  }

  byIds(m: EntityManager, ids: string[]): Promise<EntryRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return m.query(`SELECT ${ENTRY_COLUMNS} FROM experience_entries WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /** Active entries (of a collection, or all), oldest first. */
  active(m: EntityManager, collection?: string, kinds?: EntryKind[]): Promise<EntryRow[]> {
    return m.query(
      `SELECT ${ENTRY_COLUMNS} FROM experience_entries
       WHERE status = 'active' AND ($1::text IS NULL OR collection = $1) AND ($2::text[] IS NULL OR kind = ANY($2))
       ORDER BY created_at, id`,
      [collection ?? null, kinds ?? null],
    );
  }

  /** One page of a collection's active entries, by id (the in-memory index loads in pages). */
  activePage(
    m: EntityManager,
    collection: string,
    afterId: string | null,
    limit: number,
  ): Promise<EntryRow[]> {
    return m.query(
      `SELECT ${ENTRY_COLUMNS} FROM experience_entries
       WHERE status = 'active' AND collection = $1 AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3`,
      [collection, afterId, limit],
    );
  }

  /**
   * Which entries were written since a point in time (any status: archived ones leave an in-memory index):
   * identity, status and time only (the index then reads the rows it does not hold as they are).
   */
  changedSince(
    m: EntityManager,
    since: Date,
  ): Promise<{ id: string; collection: string; status: string; updated_at: Date }[]> {
    return m.query(
      `SELECT id, collection, status, updated_at FROM experience_entries WHERE updated_at > $1 ORDER BY updated_at`,
      [since.toISOString()],
    );
  }

  /** Candidates by pgvector (HNSW on the collection's dimension): cosine similarity in `similarity`. */
  async nearest(
    m: EntityManager,
    collection: string,
    dimension: number,
    vector: ArrayLike<number>,
    k: number,
  ): Promise<(EntryRow & { similarity: number })[]> {
    const d = Math.trunc(dimension);
    await m.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(Math.max(40, k * 2))]);
    return m.query(
      `SELECT ${ENTRY_COLUMNS}, 1 - (embedding_v::vector(${d}) <=> $2::vector(${d})) AS similarity
       FROM experience_entries
       WHERE dimension = ${d} AND collection = $1 AND status = 'active'
       ORDER BY embedding_v::vector(${d}) <=> $2::vector(${d}) LIMIT $3`,
      [collection, vectorLiteral(vector), k],
    );
  }

  /** Candidates sharing keywords with the query (the keyword half of candidate selection). */
  byKeywords(m: EntityManager, collection: string, words: string[], k: number): Promise<EntryRow[]> {
    if (!words.length) return Promise.resolve([]);
    return m.query(
      `SELECT ${ENTRY_COLUMNS} FROM experience_entries
       WHERE collection = $1 AND status = 'active' AND keywords && $2::text[]
       ORDER BY cardinality(ARRAY(SELECT unnest(keywords) INTERSECT SELECT unnest($2::text[]))) DESC, confidence DESC
       LIMIT $3`,
      [collection, words, k],
    );
  }

  /** Adds one verdict to the entry's counters and the verdict log; null when the entry does not exist. */
  async recordVerdict(
    m: EntityManager,
    id: string,
    collection: string,
    verdict: 'followed' | 'ignored' | 'irrelevant',
    origin: 'feedback' | 'judge',
    sessionId: string | null,
  ): Promise<EntryRow | null> {
    // TypeORM answers an UPDATE … RETURNING as [rows, affected]
    const [rows]: [EntryRow[], number] = await m.query(
      `UPDATE experience_entries SET ${verdict} = ${verdict} + 1, updated_at = now()
       WHERE id = $1 AND collection = $2 RETURNING ${ENTRY_COLUMNS}`,
      [id, collection],
    );
    if (!rows.length) return null;
    await m.query(
      `INSERT INTO experience_verdicts (entry_id, collection, verdict, origin, session_id) VALUES ($1, $2, $3, $4, $5)`,
      [id, collection, verdict, origin, sessionId],
    );
    return rows[0];
  }

  /**
   * Many verdicts at once (the judge's batch): each entry's counters raised by its verdicts in one UPDATE,
   * the verdict rows in one INSERT. Verdicts on entries that are not there (another collection) are dropped.
   */
  async recordVerdicts(
    m: EntityManager,
    verdicts: {
      id: string;
      collection: string;
      verdict: Verdict;
      origin: 'feedback' | 'judge';
      sessionId: string | null;
    }[],
  ): Promise<void> {
    if (!verdicts.length) return;
    const counts = new Map<
      string,
      { collection: string; followed: number; ignored: number; irrelevant: number }
    >();
    for (const v of verdicts) {
      const key = `${v.id}\u0000${v.collection}`;
      const c = counts.get(key) ?? { collection: v.collection, followed: 0, ignored: 0, irrelevant: 0 };
      c[v.verdict]++;
      counts.set(key, c);
    }
    const keys = [...counts.keys()];
    const [rows]: [{ id: string; collection: string }[], number] = await m.query(
      `UPDATE experience_entries e SET followed = e.followed + d.followed, ignored = e.ignored + d.ignored,
         irrelevant = e.irrelevant + d.irrelevant, updated_at = now()
       FROM unnest($1::uuid[], $2::text[], $3::int[], $4::int[], $5::int[]) AS d(id, collection, followed, ignored, irrelevant)
       WHERE e.id = d.id AND e.collection = d.collection RETURNING e.id, e.collection`,
      [
        keys.map((k) => k.split('\u0000')[0]),
        keys.map((k) => counts.get(k)!.collection),
        keys.map((k) => counts.get(k)!.followed),
        keys.map((k) => counts.get(k)!.ignored),
        keys.map((k) => counts.get(k)!.irrelevant),
      ],
    );
    const present = new Set(rows.map((r) => `${r.id}\u0000${r.collection}`));
    const kept = verdicts.filter((v) => present.has(`${v.id}\u0000${v.collection}`));
    if (!kept.length) return;
    await m.query(
      `INSERT INTO experience_verdicts (entry_id, collection, verdict, origin, session_id)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[])`,
      [
        kept.map((v) => v.id),
        kept.map((v) => v.collection),
        kept.map((v) => v.verdict),
        kept.map((v) => v.origin),
        kept.map((v) => v.sessionId),
      ],
    );
  }

  async setTier(m: EntityManager, id: string, tier: Tier, confidence: number): Promise<void> {
    await m.query(
      `UPDATE experience_entries SET tier = $2, confidence = $3, updated_at = now() WHERE id = $1`,
      [id, tier, confidence],
    );
  }

  async archive(
    m: EntityManager,
    ids: string[],
    reason: string,
    supersededBy: string | null = null,
  ): Promise<void> {
    if (!ids.length) return;
    await m.query(
      `UPDATE experience_entries SET status = 'archived', archived_reason = $2, superseded_by = coalesce($3, superseded_by),
         updated_at = now() WHERE id = ANY($1::uuid[]) AND status = 'active'`,
      [ids, reason, supersededBy],
    );
  }

  /** A duplicate seen again: the kept entry gains the example and some confidence. */
  async reinforce(
    m: EntityManager,
    id: string,
    example: string | null,
    confidenceBump: number,
  ): Promise<void> {
    await m.query(
      `UPDATE experience_entries SET confidence = least(1, confidence + $3),
         source_examples = CASE WHEN $2::text IS NULL OR $2 = ANY(source_examples) THEN source_examples
                                ELSE (source_examples || $2::text)[greatest(1, cardinality(source_examples) - 8):] END,
         updated_at = now() WHERE id = $1`,
      [id, example, confidenceBump],
    );
  }

  async markExported(m: EntityManager, id: string): Promise<void> {
    await m.query(`UPDATE experience_entries SET exported = true, updated_at = now() WHERE id = $1`, [id]);
  }

  async addEdge(m: EntityManager, from: string, to: string, type: EdgeType): Promise<void> {
    await m.query(
      `INSERT INTO experience_edges (from_id, to_id, type) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [from, to, type],
    );
  }

  /** Edges leaving or entering an entry, with the other end's text and status. */
  edges(
    m: EntityManager,
    id: string,
    types: EdgeType[],
  ): Promise<{ type: EdgeType; id: string; text: string; status: string; direction: 'out' | 'in' }[]> {
    return m.query(
      `SELECT x.type, e.id, e.text, e.status, x.direction FROM (
         SELECT type, to_id AS other, 'out' AS direction, created_at FROM experience_edges WHERE from_id = $1 AND type = ANY($2)
         UNION ALL
         SELECT type, from_id AS other, 'in' AS direction, created_at FROM experience_edges WHERE to_id = $1 AND type = ANY($2)
       ) x JOIN experience_entries e ON e.id = x.other ORDER BY x.type, x.created_at`,
      [id, types],
    );
  }

  async addEvent(
    m: EntityManager,
    entryId: string,
    type: EventType,
    text: string,
    tier: Tier | null,
    payload: Record<string, unknown>,
  ): Promise<void> {
    await m.query(
      `INSERT INTO experience_events (entry_id, type, text, tier, payload) VALUES ($1, $2, $3, $4, $5)`,
      [entryId, type, text, tier, JSON.stringify(payload)],
    );
  }

  /** Events whose text mentions any of the topic's words, newest first. */
  timeline(m: EntityManager, topicWords: string[], limit: number): Promise<EventRow[]> {
    return m.query(
      `SELECT id::text, entry_id, type, text, tier, payload, created_at FROM experience_events ev
       WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) w WHERE lower(ev.text) LIKE '%' || w || '%')
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      [topicWords, limit],
    );
  }

  async verdictDistribution(m: EntityManager, id: string): Promise<Record<string, number>> {
    const rows: { followed: number; ignored: number; irrelevant: number }[] = await m.query(
      `SELECT followed, ignored, irrelevant FROM experience_entries WHERE id = $1`,
      [id],
    );
    return rows[0] ?? { followed: 0, ignored: 0, irrelevant: 0 };
  }

  async recordInterception(
    m: EntityManager,
    rows: { sessionId: string | null; workspace: string | null; toolName: string; suggestedIds: string[] }[],
  ): Promise<void> {
    if (!rows.length) return;
    await m.query(
      `INSERT INTO experience_interceptions (session_id, workspace, tool_name, suggested_ids)
       SELECT s, w, t, CASE WHEN ids = '' THEN '{}'::uuid[] ELSE string_to_array(ids, ',')::uuid[] END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS x(s, w, t, ids)`,
      [
        rows.map((r) => r.sessionId),
        rows.map((r) => r.workspace),
        rows.map((r) => r.toolName),
        rows.map((r) => r.suggestedIds.join(',')),
      ],
    );
  }

  async stats(m: EntityManager): Promise<{
    total: number;
    withSuggestions: number;
    verdicts: Record<Verdict, number>;
    perSession: number[];
    tiers: Record<Tier, number>;
    avoided: number;
  }> {
    const [counts]: { total: number; with_suggestions: number }[] = await m.query(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE cardinality(suggested_ids) > 0)::int AS with_suggestions
       FROM experience_interceptions`,
    );
    const verdictRows: { verdict: Verdict; n: number }[] = await m.query(
      `SELECT verdict, count(*)::int AS n FROM experience_verdicts GROUP BY verdict`,
    );
    const sessions: { n: number }[] = await m.query(
      `SELECT count(*) FILTER (WHERE cardinality(suggested_ids) > 0)::int AS n FROM experience_interceptions
       WHERE session_id IS NOT NULL GROUP BY session_id`,
    );
    const tierRows: { tier: Tier; n: number }[] = await m.query(
      `SELECT tier, count(*)::int AS n FROM experience_entries WHERE status = 'active' GROUP BY tier`,
    );
    const [avoided]: { n: number }[] = await m.query(
      `SELECT count(*)::int AS n FROM experience_judge_jobs
       WHERE status = 'done' AND (result ->> 'avoided') = 'true'`,
    );
    const verdicts = { followed: 0, ignored: 0, irrelevant: 0 };
    for (const r of verdictRows) verdicts[r.verdict] = r.n;
    const tiers = { T0: 0, T1: 0, T2: 0, T3: 0 };
    for (const r of tierRows) tiers[r.tier] = r.n;
    return {
      total: counts.total,
      withSuggestions: counts.with_suggestions,
      verdicts,
      perSession: sessions.map((s) => s.n),
      tiers,
      avoided: avoided.n,
    };
  }

  async enqueueJobs(
    m: EntityManager,
    jobs: { id: string; payload: Record<string, unknown> }[],
  ): Promise<void> {
    await m.query(
      `INSERT INTO experience_judge_jobs (id, payload) SELECT * FROM unnest($1::uuid[], $2::jsonb[])`,
      [jobs.map((j) => j.id), jobs.map((j) => JSON.stringify(j.payload))],
    );
  }

  /** Tenants with queued jobs (read across tenants by the worker). */
  async tenantsWithQueuedJobs(m: EntityManager): Promise<string[]> {
    const rows: { tenant_id: string }[] = await m.query(
      `SELECT DISTINCT tenant_id FROM experience_judge_jobs WHERE status = 'queued'`,
    );
    return rows.map((r) => r.tenant_id);
  }

  /** Takes up to `limit` queued jobs, locked for this transaction (another replica skips them). */
  claimJobs(m: EntityManager, limit: number): Promise<JudgeJobRow[]> {
    return m.query(
      `SELECT id, tenant_id, payload, attempts, created_at FROM experience_judge_jobs
       WHERE status = 'queued' ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  /** Marks judged jobs done in one statement (the worker's batch). */
  async completeJobs(
    m: EntityManager,
    jobs: { id: string; result: Record<string, unknown>; judge: string }[],
  ): Promise<void> {
    if (!jobs.length) return;
    await m.query(
      `UPDATE experience_judge_jobs j SET status = 'done', result = d.result, judge = d.judge,
         attempts = j.attempts + 1, processed_at = now()
       FROM unnest($1::uuid[], $2::jsonb[], $3::text[]) AS d(id, result, judge) WHERE j.id = d.id`,
      [jobs.map((j) => j.id), jobs.map((j) => JSON.stringify(j.result)), jobs.map((j) => j.judge)],
    );
  }

  async queueState(m: EntityManager): Promise<{ queued: number; doneLastMinute: number }> {
    const [row]: { queued: number; done: number }[] = await m.query(
      `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued,
              count(*) FILTER (WHERE status = 'done' AND processed_at > now() - interval '1 minute')::int AS done
       FROM experience_judge_jobs`,
    );
    return { queued: row.queued, doneLastMinute: row.done };
  }

  async job(
    m: EntityManager,
    id: string,
  ): Promise<{ status: string; result: Record<string, unknown> | null } | null> {
    const rows = await m.query(`SELECT status, result FROM experience_judge_jobs WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Transaction-scoped advisory lock (evolve runs on one replica at a time). */
  async tryLock(m: EntityManager, key: number): Promise<boolean> {
    const [row]: { locked: boolean }[] = await m.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [
      key,
    ]);
    return row.locked;
  }
}
