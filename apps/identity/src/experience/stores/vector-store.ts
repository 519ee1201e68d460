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
      // not loaded, or still loading (its pages or the next refresh read the row)
      if (!state?.entries) continue;
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

  /**
   * Picks up writes of other replicas (polled, in the background of a search): first which entries changed
   * (id, collection, status and time only), then the full rows of those the index does not hold as they are
   * now. This process's own writes are already in the index (`indexed`), so a bulk load here costs one light
   * listing, not reading every row and vector again.
   */
  private refresh(state: MemoryCollection): void {
    const since = new Date(Date.now() - 2000); // overlap: a transaction that committed late
    state.refreshing = this.uow
      .run(
        async (m) => {
          const changed = await this.repository.changedSince(m, state.since);
          const stale = changed.filter((c) => {
            if (c.collection !== state.collection) return false;
            const held = state.entries.get(c.id);
            if (!held) return c.status === 'active';
            return c.status !== 'active' || held.row.updated_at.getTime() !== c.updated_at.getTime();
          });
          const rows: EntryRow[] = [];
          for (let i = 0; i < stale.length; i += 2000)
            rows.push(
              ...(await this.repository.byIds(
                m,
                stale.slice(i, i + 2000).map((c) => c.id),
              )),
            );
          return rows;
        },
        { tenantId: state.tenant },
      )
      .then((rows) => {
        for (const row of rows) apply(state.entries, row);
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
 * The vectors of one collection as posting lists, one per dimension: the slots whose vector is non-zero
 * there, with the value. A query walks only the lists of its own non-zero dimensions and adds
 * `weight × value` into one score per slot, so the work is the number of non-zero entries it meets, not
 * `dimensions × entries`: the local embedder's vectors are sparse (≈ 60 of 256 buckets for a lesson,
 * ≈ 30 for a tool call), which makes a query at 100,000 lessons touch ≈ 700,000 values instead of the
 * 2.8 million a column scan of its dimensions reads. Still exact (a zero adds nothing to a dot product).
 * A replaced or deleted entry leaves a dead slot behind (skipped by the ranking); the lists are rebuilt
 * from the live entries when a quarter of the slots are dead.
 */
export class VectorMatrix {
  private dim = 0;
  /** Slot → candidate (`null`: a dead slot). */
  private slots: (Candidate | null)[] = [];
  private readonly index = new Map<string, number>();
  private live = 0;
  private ids: Int32Array[] = [];
  private values: Float32Array[] = [];
  private lengths = new Int32Array(0);
  private scores = new Float64Array(0);

  get size(): number {
    return this.live;
  }

  set(c: Candidate): void {
    if (this.dim === 0) this.init(c.vector.length);
    if (c.vector.length !== this.dim) return;
    const at = this.index.get(c.row.id);
    if (at !== undefined) {
      const old = this.slots[at]!;
      if (sameVector(old.vector, c.vector)) {
        this.slots[at] = c; // the row changed (tier, confidence, text), the vector did not
        return;
      }
      this.kill(at);
    }
    const slot = this.slots.length;
    this.slots.push(c);
    this.index.set(c.row.id, slot);
    this.live++;
    this.post(slot, c.vector);
  }

  /** The entry held for an id. */
  get(id: string): Candidate | undefined {
    const at = this.index.get(id);
    return at === undefined ? undefined : (this.slots[at] ?? undefined);
  }

  delete(id: string): void {
    const at = this.index.get(id);
    if (at === undefined) return;
    this.kill(at);
  }

  /** The `k` best by dot product (cosine: the vectors are normalised), best first. */
  search(query: Float32Array, k: number): Candidate[] {
    const n = this.slots.length;
    if (!this.live || query.length !== this.dim || k <= 0) return [];
    if (this.scores.length < n) this.scores = new Float64Array(Math.max(64, this.slots.length * 2));
    const scores = this.scores;
    scores.fill(0, 0, n);
    for (let d = 0; d < this.dim; d++) {
      const w = query[d];
      if (w === 0) continue;
      const ids = this.ids[d];
      const values = this.values[d];
      const length = this.lengths[d];
      for (let j = 0; j < length; j++) scores[ids[j]] += w * values[j];
    }
    const top: number[] = [];
    const slots = this.slots;
    let floor = -Infinity; // the k-th best score once there are k
    for (let i = 0; i < n; i++) {
      const s = scores[i];
      if (s <= floor || slots[i] === null) continue;
      let at = top.length;
      while (at > 0 && scores[top[at - 1]] < s) at--;
      top.splice(at, 0, i);
      if (top.length > k) top.pop();
      if (top.length === k) floor = scores[top[k - 1]];
    }
    return top.map((i) => ({ ...slots[i]!, similarity: scores[i] }));
  }

  private init(dim: number) {
    this.dim = dim;
    this.ids = Array.from({ length: dim }, () => new Int32Array(64));
    this.values = Array.from({ length: dim }, () => new Float32Array(64));
    this.lengths = new Int32Array(dim);
  }

  private post(slot: number, vector: Float32Array) {
    for (let d = 0; d < this.dim; d++) {
      const v = vector[d];
      if (v === 0) continue;
      let length = this.lengths[d];
      if (length === this.ids[d].length) {
        const ids = new Int32Array(length * 2);
        ids.set(this.ids[d]);
        this.ids[d] = ids;
        const values = new Float32Array(length * 2);
        values.set(this.values[d]);
        this.values[d] = values;
      }
      this.ids[d][length] = slot;
      this.values[d][length++] = v;
      this.lengths[d] = length;
    }
  }

  private kill(slot: number) {
    this.index.delete(this.slots[slot]!.row.id);
    this.slots[slot] = null;
    this.live--;
    if (this.slots.length >= 64 && this.live < this.slots.length * 0.75) this.compact();
  }

  /** Rebuilds the lists from the live entries (dead slots gone, slots renumbered). */
  private compact() {
    const alive = this.slots.filter((c): c is Candidate => c !== null);
    this.slots = [];
    this.index.clear();
    this.live = 0;
    this.lengths.fill(0);
    for (const c of alive) {
      const slot = this.slots.length;
      this.slots.push(c);
      this.index.set(c.row.id, slot);
      this.live++;
      this.post(slot, c.vector);
    }
  }
}

function sameVector(a: Float32Array, b: Float32Array): boolean {
  if (a === b) return true;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
