import { ConfigurationError, Database, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { experienceError } from '../experience-errors';
import { ExperienceSettings } from '../experience.settings';
import { DEFAULT_HNSW_DIMENSION, hnswIndexSql } from '../persistence/experience-migration';
import { EntryRow, ExperienceRepository } from '../persistence/experience.repository';

/** An entry as ranking sees it, with its cosine similarity to the query. */
export interface Candidate {
  row: EntryRow;
  vector: Float32Array;
  keywordSet: ReadonlySet<string>;
  similarity: number;
}

export type VectorStoreKind = 'pgvector-hnsw' | 'exact-in-process';

/**
 * The vector store behind one interface, two implementations chosen at startup:
 * - `pgvector-hnsw`: the `embedding_v` column with a partial HNSW index per dimension, searched in SQL
 *   (PGlite's pgvector extension in embedded mode, or a server that has pgvector);
 * - `exact-in-process`: on a PostgreSQL without the extension, the entries' `real[]` vectors are kept in
 *   memory per tenant and collection (loaded on first use, kept in step with this process's writes and
 *   polled every second for other replicas' writes) and searched exactly.
 * `/api/gates` reports which one runs.
 */
@Injectable()
export class VectorStore implements OnModuleInit {
  private readonly logger = new Logger('ExperienceVectors');
  private mode: VectorStoreKind = 'exact-in-process';
  private readonly memory = new Map<string, MemoryCollection>();

  constructor(
    @Inject(Database) private readonly database: Database,
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
    @Inject(ExperienceSettings) private readonly settings: ExperienceSettings,
  ) {}

  async onModuleInit(): Promise<void> {
    const rows: unknown[] = await this.database.dataSource.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'experience_entries' AND column_name = 'embedding_v'`,
    );
    const available = rows.length > 0;
    if (this.settings.vectorStore === 'pgvector' && !available) {
      throw new ConfigurationError(
        'Experience:VectorStore is pgvector but the database has no pgvector extension',
        ['Experience:VectorStore'],
      );
    }
    this.mode = available && this.settings.vectorStore !== 'exact' ? 'pgvector-hnsw' : 'exact-in-process';
    this.logger.log(`vector store: ${this.mode}`);
  }

  get kind(): VectorStoreKind {
    return this.mode;
  }

  /** Whether writes fill the pgvector column (whenever the column exists, so a later switch finds it). */
  async ensureDimension(dimension: number): Promise<void> {
    if (this.mode !== 'pgvector-hnsw' || dimension === DEFAULT_HNSW_DIMENSION) return;
    if (this.indexedDimensions.has(dimension)) return;
    this.indexedDimensions.add(dimension);
    // DDL as the connection's own (owner) role, outside any unit of work, and not awaited: the caller
    // may hold a transaction open (PGlite serialises them); until the index exists the search scans.
    void this.database.dataSource
      .query(hnswIndexSql(dimension))
      .catch((error: Error) =>
        this.logger.warn(`HNSW index for ${dimension} dimensions failed: ${error.message}`),
      );
  }
  private readonly indexedDimensions = new Set<number>();

  get writesVectorColumn(): boolean {
    return this.mode === 'pgvector-hnsw';
  }

  /** The `k` nearest active entries of a collection (cosine). */
  async search(collection: string, dimension: number, vector: Float32Array, k: number): Promise<Candidate[]> {
    if (this.mode === 'pgvector-hnsw') {
      try {
        const rows = await this.uow.run((m) => this.repository.nearest(m, collection, dimension, vector, k));
        return rows.map((row) => toCandidate(row, Number(row.similarity)));
      } catch (error) {
        throw experienceError.vectorDbDown((error as Error).message);
      }
    }
    const entries = await this.loaded(collection);
    const scored: Candidate[] = [];
    for (const c of entries.values()) {
      if (c.vector.length !== vector.length) continue;
      let dot = 0;
      for (let i = 0; i < vector.length; i++) dot += vector[i] * c.vector[i];
      scored.push({ ...c, similarity: dot });
    }
    scored.sort((a, b) => b.similarity - a.similarity);
    return scored.slice(0, k);
  }

  /** Entries written by this process (after their transaction committed): the in-memory index follows. */
  indexed(rows: EntryRow[]): void {
    if (this.mode !== 'exact-in-process') return;
    for (const row of rows) {
      const state = this.memory.get(key(row.tenant_id, row.collection));
      if (!state) continue;
      apply(state.entries, row);
    }
  }

  /** Entries of a collection as held in memory, loading and refreshing as needed. */
  private async loaded(collection: string): Promise<Map<string, Candidate>> {
    const tenant = RequestContext.tenantId();
    const k = key(tenant, collection);
    let state = this.memory.get(k);
    if (!state) {
      const loading = (async () => {
        const since = new Date();
        const rows = await this.uow
          .run((m) => this.repository.active(m, collection), { tenantId: tenant })
          .catch((error: Error) => {
            throw experienceError.vectorDbDown(error.message);
          });
        const entries = new Map<string, Candidate>();
        for (const row of rows) apply(entries, row);
        return { entries, since, refreshedAt: Date.now(), refreshing: null, tenant, collection };
      })();
      const placeholder = { loading } as unknown as MemoryCollection;
      this.memory.set(k, placeholder);
      try {
        state = await loading;
      } catch (error) {
        this.memory.delete(k);
        throw error;
      }
      this.memory.set(k, state);
    } else if ((state as unknown as { loading?: Promise<MemoryCollection> }).loading) {
      state = await (state as unknown as { loading: Promise<MemoryCollection> }).loading;
    }
    if (Date.now() - state.refreshedAt > 1000 && !state.refreshing) this.refresh(state);
    return state.entries;
  }

  /** Picks up writes of other replicas (polled, in the background of a search). */
  private refresh(state: MemoryCollection): void {
    const since = new Date(Date.now() - 2000); // overlap: a transaction that committed late
    state.refreshing = this.uow
      .run((m) => this.repository.changedSince(m, state.since), { tenantId: state.tenant })
      .then((rows) => {
        for (const row of rows) if (row.collection === state.collection) apply(state.entries, row);
        state.since = since;
        state.refreshedAt = Date.now();
      })
      .catch((error: Error) => this.logger.warn(`vector refresh failed: ${error.message}`))
      .finally(() => (state.refreshing = null));
  }

  /** Liveness of the store (the database behind it). */
  async ping(): Promise<{ ok: boolean; detail?: string }> {
    const ok = await this.database.ping(1500);
    return ok ? { ok } : { ok, detail: 'database did not answer' };
  }
}

interface MemoryCollection {
  tenant: string;
  collection: string;
  entries: Map<string, Candidate>;
  since: Date;
  refreshedAt: number;
  refreshing: Promise<void> | null;
}

const key = (tenant: string, collection: string) => `${tenant}\u0000${collection}`;

function toCandidate(row: EntryRow, similarity: number): Candidate {
  return { row, vector: Float32Array.from(row.embedding), keywordSet: new Set(row.keywords), similarity };
}

function apply(entries: Map<string, Candidate>, row: EntryRow) {
  if (row.status !== 'active') entries.delete(row.id);
  else entries.set(row.id, toCandidate(row, 0));
}
