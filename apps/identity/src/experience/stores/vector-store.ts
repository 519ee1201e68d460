import { ConfigurationError, Database, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { experienceError } from '../experience-errors';
import { ExperienceSettings } from '../experience.settings';
import { DEFAULT_HNSW_DIMENSION, hnswIndexSql } from '../persistence/experience-migration';
import { EntryRow, ExperienceRepository, vectorOf } from '../persistence/experience.repository';

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
 * - `exact-in-process`: on a PostgreSQL without the extension, vectors stay in `real[]`.
 * The hot path (intercept, pil-context, routing) searches an in-memory index of the entries per tenant and
 * collection (loaded on first use, kept in step with this process's writes, polled every second for other
 * replicas' writes) exactly, in both modes by default (`Experience:HotPathIndex` `memory`): measured on
 * PGlite, one HNSW query per request through the single embedded backend is an order of magnitude slower
 * than an exact scan of 10,000 vectors in memory. `HotPathIndex` `database` searches pgvector instead.
 * Writes look up neighbours (dedup, supersede) with pgvector inside their transaction where it exists.
 * `/api/gates` reports both (`vectordb.engine`, `vectordb.hotPath`).
 */
@Injectable()
export class VectorStore implements OnModuleInit, OnApplicationBootstrap {
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

  /** The default tenant's suggestion collections are loaded in the background at startup. */
  onApplicationBootstrap(): void {
    if (this.hotPath !== 'memory') return;
    void RequestContext.run({ tenantId: 'default' }, async () => {
      for (const collection of ['lessons', 'principles']) {
        await this.loaded(collection).catch((error: Error) =>
          this.logger.warn(`preloading ${collection} failed: ${error.message}`),
        );
      }
    });
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

  /** Where the hot path (intercept, pil-context, routing) searches: `memory` or `database`. */
  get hotPath(): 'memory' | 'database' {
    return this.mode === 'pgvector-hnsw' && this.settings.hotPathIndex === 'database' ? 'database' : 'memory';
  }

  /**
   * The `k` nearest active entries of a collection (cosine), for the hot path. `m`: the caller's open
   * transaction, when it has one (PGlite runs one transaction at a time: a lookup on another connection
   * would wait for it).
   */
  async search(
    collection: string,
    dimension: number,
    vector: Float32Array,
    k: number,
    m?: EntityManager,
  ): Promise<Candidate[]> {
    if (this.hotPath === 'database') return this.searchDatabase(collection, dimension, vector, k, m);
    return this.searchMemory(collection, vector, k, m);
  }

  /** Nearest entries inside the caller's transaction, by pgvector when the column exists. */
  async neighbours(
    m: EntityManager,
    collection: string,
    vector: Float32Array,
    k: number,
  ): Promise<Candidate[]> {
    if (this.mode === 'pgvector-hnsw') return this.searchDatabase(collection, vector.length, vector, k, m);
    return this.searchMemory(collection, vector, k, m);
  }

  private async searchDatabase(
    collection: string,
    dimension: number,
    vector: Float32Array,
    k: number,
    m?: EntityManager,
  ): Promise<Candidate[]> {
    {
      try {
        const work = (mm: EntityManager) => this.repository.nearest(mm, collection, dimension, vector, k);
        const rows = await (m ? work(m) : this.uow.run(work));
        return rows.map((row) => toCandidate(row, Number(row.similarity)));
      } catch (error) {
        throw experienceError.vectorDbDown((error as Error).message);
      }
    }
  }

  private async searchMemory(
    collection: string,
    vector: Float32Array,
    k: number,
    m?: EntityManager,
  ): Promise<Candidate[]> {
    const entries = await this.loaded(collection, m);
    return entries.search(vector, k);
  }

  /** Entries written by this process (after their transaction committed): the in-memory index follows. */
  indexed(rows: EntryRow[]): void {
    for (const row of rows) {
      const state = this.memory.get(key(row.tenant_id, row.collection));
      if (!state) continue;
      apply(state.entries, row);
    }
  }

  /** Entries of a collection as held in memory, loading and refreshing as needed. */
  private async loaded(collection: string, m?: EntityManager): Promise<VectorMatrix> {
    const tenant = RequestContext.tenantId();
    const k = key(tenant, collection);
    let state = this.memory.get(k);
    if (!state) {
      const loading = (async () => {
        const since = new Date();
        const entries = new VectorMatrix();
        // in pages of 2,000 (each its own short transaction unless the caller's is open)
        let after: string | null = null;
        for (;;) {
          const page: string | null = after;
          const work = (mm: EntityManager): Promise<EntryRow[]> =>
            this.repository.activePage(mm, collection, page, 2000);
          const rows: EntryRow[] = await (m ? work(m) : this.uow.run(work, { tenantId: tenant })).catch(
            (error: Error) => {
              throw experienceError.vectorDbDown(error.message);
            },
          );
          for (const row of rows) apply(entries, row);
          if (rows.length < 2000) break;
          after = rows[rows.length - 1].id;
        }
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
  entries: VectorMatrix;
  since: Date;
  refreshedAt: number;
  refreshing: Promise<void> | null;
}

const key = (tenant: string, collection: string) => `${tenant}\u0000${collection}`;

function toCandidate(row: EntryRow, similarity: number): Candidate {
  return { row, vector: vectorOf(row.embedding), keywordSet: new Set(row.keywords), similarity };
}

function apply(entries: VectorMatrix, row: EntryRow) {
  if (row.status !== 'active') entries.delete(row.id);
  else entries.set(toCandidate(row, 0));
}

/**
 * The vectors of one collection, column-major (`data[d * capacity + i]`), so a query only touches the
 * dimensions where it is non-zero: the local embedder's vectors are sparse (a few dozen of 256 buckets), and
 * the scan stays exact (a zero dimension adds nothing to a dot product).
 */
export class VectorMatrix {
  private dim = 0;
  private capacity = 0;
  private count = 0;
  private data = new Float32Array(0);
  private readonly items: Candidate[] = [];
  private readonly index = new Map<string, number>();

  get size(): number {
    return this.count;
  }

  set(c: Candidate): void {
    if (this.dim === 0) this.dim = c.vector.length;
    if (c.vector.length !== this.dim) return;
    let i = this.index.get(c.row.id);
    if (i === undefined) {
      if (this.count === this.capacity) this.grow();
      i = this.count++;
      this.index.set(c.row.id, i);
    }
    this.items[i] = c;
    for (let d = 0; d < this.dim; d++) this.data[d * this.capacity + i] = c.vector[d];
  }

  delete(id: string): void {
    const i = this.index.get(id);
    if (i === undefined) return;
    const last = --this.count;
    if (i !== last) {
      this.items[i] = this.items[last];
      this.index.set(this.items[i].row.id, i);
      for (let d = 0; d < this.dim; d++)
        this.data[d * this.capacity + i] = this.data[d * this.capacity + last];
    }
    this.items.length = last;
    this.index.delete(id);
  }

  private grow(): void {
    const capacity = Math.max(64, this.capacity * 2);
    const data = new Float32Array(this.dim * capacity);
    for (let d = 0; d < this.dim; d++) {
      data.set(this.data.subarray(d * this.capacity, d * this.capacity + this.count), d * capacity);
    }
    this.data = data;
    this.capacity = capacity;
  }

  /** The `k` best by dot product (cosine: the vectors are normalised), best first. */
  search(query: Float32Array, k: number): Candidate[] {
    const n = this.count;
    if (!n || query.length !== this.dim) return [];
    const scores = new Float32Array(n);
    for (let d = 0; d < this.dim; d++) {
      const w = query[d];
      if (w === 0) continue;
      const offset = d * this.capacity;
      for (let i = 0; i < n; i++) scores[i] += w * this.data[offset + i];
    }
    const top: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = scores[i];
      if (top.length === k && s <= scores[top[k - 1]]) continue;
      let at = top.length;
      while (at > 0 && scores[top[at - 1]] < s) at--;
      top.splice(at, 0, i);
      if (top.length > k) top.pop();
    }
    return top.map((i) => ({ ...this.items[i], similarity: scores[i] }));
  }
}
