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

/** Slots per block: a block's scores (`Float64Array(4096)`, 32 KB) stay in the first-level cache. */
const BLOCK_BITS = 12;
const BLOCK = 1 << BLOCK_BITS;
const IN_BLOCK = BLOCK - 1;
/** A posting is one int32: the value quantised to 20 signed bits above the slot's 12 bits within its block. */
const LEVELS = (1 << 19) - 1;

/**
 * The vectors of one collection as posting lists, one per dimension: the slots whose vector is non-zero
 * there. A query walks only the lists of its own non-zero dimensions, so the work is the number of non-zero
 * entries it meets, not `dimensions × entries`: the local embedder's vectors are sparse (≈ 60 of 256 buckets
 * for a lesson, ≈ 30 for a tool call). Still exact (a zero adds nothing to a dot product).
 *
 * The walk is cut into blocks of 4,096 slots: for each block, the query's lists add into 4,096 scores that
 * stay in cache, then the block is scanned for candidates before the next one. Each posting is one int32
 * (the slot within its block and the value rounded to 20 bits, half the bytes of an id and a float), so the
 * scores of the walk are approximate, off by at most `E = Σ |query weight| × half a quantisation step`. The
 * answer stays exact: every slot whose approximate score is within `2E` of the k-th best approximate score is
 * a candidate (a superset of the true k best), and the candidates are scored again from their own vectors,
 * in the same order of dimensions and the same float64 arithmetic as a plain dot product, then ordered by
 * that score (ties: the earlier slot first). The walk itself touches ≈ 7 postings per lesson per query
 * dimension set: at 100,000 lessons ≈ 1 million postings, 4 MB.
 *
 * A replaced or deleted entry leaves a dead slot behind (never a candidate); the lists are rebuilt from the
 * live entries when a quarter of the slots are dead.
 */
export class VectorMatrix {
  private dim = 0;
  /** Slot → candidate (`null`: a dead slot). */
  private slots: (Candidate | null)[] = [];
  private readonly index = new Map<string, number>();
  private live = 0;
  /** Per dimension: the postings, `(quantised value << BLOCK_BITS) | (slot & IN_BLOCK)`, in slot order. */
  private lists: Int32Array[] = [];
  private lengths = new Int32Array(0);
  /** `starts[b * dim + d]`: where block `b` begins in the list of dimension `d`. */
  private starts = new Int32Array(0);
  /** Largest magnitude a posting can hold (a power of two; 1 for normalised vectors). */
  private range = 1;
  private readonly block = new Float64Array(BLOCK);
  private candidates = new Int32Array(256);
  private approximate = new Float64Array(256);

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
    if (this.fits(c.vector)) this.post(slot, c.vector);
    else this.compact(); // a value beyond the range (not a normalised vector): posted again, wider
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
    const dim = this.dim;
    // the query's non-zero dimensions, their weights in posting units, and the bound of the walk's error
    let nonZero = 0;
    for (let d = 0; d < dim; d++) if (query[d] !== 0) nonZero++;
    const dims = new Int32Array(nonZero);
    const weights = new Float64Array(nonZero);
    const step = this.range / LEVELS;
    let absolute = 0;
    for (let d = 0, t = 0; d < dim; d++) {
      const w = query[d];
      if (w === 0) continue;
      dims[t] = d;
      weights[t++] = w * step;
      absolute += Math.abs(w);
    }
    // half a step per value, and room for the float64 rounding of both sums
    const margin = 2 * (absolute * step * 0.5 + 1e-9 * (1 + absolute * this.range));
    const best = new Float64Array(k); // the k best approximate scores so far, best first
    let held = 0;
    let floor = -Infinity;
    let cut = -Infinity; // floor - margin: a slot below it is not a candidate
    let found = 0;
    const scores = this.block;
    const lists = this.lists;
    const starts = this.starts;
    const lengths = this.lengths;
    const slots = this.slots;
    const blocks = (n + IN_BLOCK) >>> BLOCK_BITS;
    for (let b = 0; b < blocks; b++) {
      const base = b << BLOCK_BITS;
      const end = Math.min(BLOCK, n - base);
      scores.fill(0, 0, end);
      const last = b === blocks - 1;
      for (let t = 0; t < nonZero; t++) {
        const d = dims[t];
        const to = last ? lengths[d] : starts[(b + 1) * dim + d];
        accumulate(lists[d], starts[b * dim + d], to, scores, weights[t]);
      }
      for (let i = 0; i < end; i++) {
        // most slots are below the cut: four at a time
        if (
          i + 4 <= end &&
          scores[i] < cut &&
          scores[i + 1] < cut &&
          scores[i + 2] < cut &&
          scores[i + 3] < cut
        ) {
          i += 3;
          continue;
        }
        const s = scores[i];
        if (s < cut || slots[base + i] === null) continue;
        if (found === this.candidates.length) this.grow();
        this.candidates[found] = base + i;
        this.approximate[found++] = s;
        if (s <= floor) continue;
        let at = held < k ? held++ : k - 1;
        while (at > 0 && best[at - 1] < s) {
          best[at] = best[at - 1];
          at--;
        }
        best[at] = s;
        if (held === k) {
          floor = best[k - 1];
          cut = floor - margin;
        }
      }
    }
    // the exact scores of the candidates within the margin of the final k-th approximate score
    const exact: { slot: number; score: number }[] = [];
    for (let c = 0; c < found; c++) {
      if (this.approximate[c] < cut) continue;
      const slot = this.candidates[c];
      const vector = slots[slot]!.vector;
      let s = 0;
      for (let t = 0; t < nonZero; t++) {
        const d = dims[t];
        const v = vector[d];
        if (v !== 0) s += query[d] * v;
      }
      exact.push({ slot, score: s });
    }
    exact.sort((a, b) => b.score - a.score || a.slot - b.slot);
    if (exact.length > k) exact.length = k;
    return exact.map((e) => ({ ...slots[e.slot]!, similarity: e.score }));
  }

  private init(dim: number) {
    this.dim = dim;
    this.lists = Array.from({ length: dim }, () => new Int32Array(64));
    this.lengths = new Int32Array(dim);
    this.starts = new Int32Array(dim * 4);
  }

  private grow() {
    const candidates = new Int32Array(this.candidates.length * 2);
    candidates.set(this.candidates);
    this.candidates = candidates;
    const approximate = new Float64Array(this.approximate.length * 2);
    approximate.set(this.approximate);
    this.approximate = approximate;
  }

  /** Whether every finite value of the vector is within the postings' range (a non-finite one posts as 0). */
  private fits(vector: Float32Array): boolean {
    for (let d = 0; d < vector.length; d++)
      if (Math.abs(vector[d]) > this.range && Number.isFinite(vector[d])) return false;
    return true;
  }

  private post(slot: number, vector: Float32Array) {
    const dim = this.dim;
    if ((slot & IN_BLOCK) === 0) {
      // a new block begins where each list ends now
      const b = slot >>> BLOCK_BITS;
      if ((b + 1) * dim > this.starts.length) {
        const starts = new Int32Array(this.starts.length * 2);
        starts.set(this.starts);
        this.starts = starts;
      }
      this.starts.set(this.lengths, b * dim);
    }
    const within = slot & IN_BLOCK;
    const scale = LEVELS / this.range;
    for (let d = 0; d < dim; d++) {
      const v = vector[d];
      if (v === 0) continue;
      let length = this.lengths[d];
      if (length === this.lists[d].length) {
        const list = new Int32Array(length * 2);
        list.set(this.lists[d]);
        this.lists[d] = list;
      }
      this.lists[d][length++] = (Math.round(v * scale) << BLOCK_BITS) | within;
      this.lengths[d] = length;
    }
  }

  private kill(slot: number) {
    this.index.delete(this.slots[slot]!.row.id);
    this.slots[slot] = null;
    this.live--;
    if (this.slots.length >= 64 && this.live < this.slots.length * 0.75) this.compact();
  }

  /**
   * Rebuilds the lists from the live entries (dead slots gone, slots renumbered), the range widened to hold
   * the largest finite value.
   */
  private compact() {
    this.slots = this.slots.filter((c): c is Candidate => c !== null);
    let largest = 1;
    for (const c of this.slots) {
      for (let d = 0; d < c!.vector.length; d++) {
        const v = Math.abs(c!.vector[d]);
        if (v > largest && Number.isFinite(v)) largest = v;
      }
    }
    this.range = 2 ** Math.ceil(Math.log2(largest));
    this.index.clear();
    this.live = 0;
    this.lengths.fill(0);
    this.slots.forEach((c, slot) => {
      this.index.set(c!.row.id, slot);
      this.live++;
      this.post(slot, c!.vector);
    });
  }
}

/** `scores[slot in block] += weight × quantised value` over postings `[from, to)` of a list (unrolled by 4). */
function accumulate(list: Int32Array, from: number, to: number, scores: Float64Array, weight: number) {
  let j = from;
  for (; j + 4 <= to; j += 4) {
    const p0 = list[j];
    const p1 = list[j + 1];
    const p2 = list[j + 2];
    const p3 = list[j + 3];
    scores[p0 & IN_BLOCK] += weight * (p0 >> BLOCK_BITS);
    scores[p1 & IN_BLOCK] += weight * (p1 >> BLOCK_BITS);
    scores[p2 & IN_BLOCK] += weight * (p2 >> BLOCK_BITS);
    scores[p3 & IN_BLOCK] += weight * (p3 >> BLOCK_BITS);
  }
  for (; j < to; j++) {
    const p = list[j];
    scores[p & IN_BLOCK] += weight * (p >> BLOCK_BITS);
  }
}

function sameVector(a: Float32Array, b: Float32Array): boolean {
  if (a === b) return true;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
