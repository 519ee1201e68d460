import { RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { ExperienceErrors, experienceError } from './experience-errors';
import { ExperienceSettings } from './experience.settings';
import { EmbeddingProvider, keywords, LocalHashEmbedder, OpenAiCompatibleEmbedder } from './models/embedding';
import {
  EntryKind,
  EntryRow,
  ExperienceRepository,
  NewEntry,
  Tier,
} from './persistence/experience.repository';
import { VectorStore } from './stores/vector-store';
import { AppError } from '@arbiter/platform';

/** The collections of the experience service. */
export const Collections = {
  lessons: 'lessons',
  principles: 'principles',
  tasks: 'tasks',
  workflows: 'workflows',
} as const;
export type CollectionName = (typeof Collections)[keyof typeof Collections];
export const COLLECTION_NAMES: string[] = Object.values(Collections);

export const TIER_RANK: Record<Tier, number> = { T0: 0, T1: 1, T2: 2, T3: 3 };

export const EMBEDDING_PROVIDER = Symbol('experience:embedding-provider');

export function embeddingProviderFor(settings: ExperienceSettings): EmbeddingProvider {
  return settings.embeddingProvider === 'openai'
    ? new OpenAiCompatibleEmbedder(
        settings.embeddingBaseUrl,
        settings.embeddingModel,
        settings.embeddingApiKey,
        settings.modelTimeoutMs,
      )
    : new LocalHashEmbedder(settings.localEmbeddingDimension);
}

export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

export function centroid(vectors: Float32Array[]): Float32Array {
  const out = new Float32Array(vectors[0].length);
  for (const v of vectors) for (let i = 0; i < v.length; i++) out[i] += v[i];
  let norm = 0;
  for (const x of out) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}

export interface LessonInput {
  kind: EntryKind;
  collection: CollectionName;
  pattern: string;
  text: string;
  tier?: Tier;
  confidence: number;
  workspace?: string | null;
  toolName?: string | null;
  agent?: string | null;
  sessionId?: string | null;
  tags?: string[];
  sourceExamples?: string[];
  meta?: Record<string, unknown>;
  source?: string;
  /** A precomputed vector (principles: the centroid of their sources). */
  vector?: Float32Array;
  extraKeywords?: string[];
}

export interface AddResult {
  entry: EntryRow;
  /** `merged`: a near-duplicate was reinforced instead; `superseded`: an older entry was replaced. */
  outcome: 'created' | 'merged' | 'superseded';
  supersededId?: string;
}

/** The text an entry is embedded and keyword-matched by. */
export const embeddedText = (pattern: string, text: string, toolName?: string | null) =>
  `${toolName ?? ''} ${pattern} ${text}`.trim();

/** Lesson-like words that turn a statement around ("never" vs "always"), for contradiction checks. */
const NEGATION = /\b(not|never|don't|do not|avoid|no longer|instead of|stop)\b/i;

/**
 * One owner for writing knowledge: embeds (checking each collection's recorded dimension), merges
 * near-duplicates, supersedes the entry a new lesson contradicts or refines (edge + timeline event),
 * links related entries, and keeps the vector store in step.
 */
@Injectable()
export class Knowledge {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(ExperienceRepository) private readonly repository: ExperienceRepository,
    @Inject(VectorStore) readonly vectors: VectorStore,
    @Inject(EMBEDDING_PROVIDER) readonly embedder: EmbeddingProvider,
    @Inject(ExperienceSettings) private readonly settings: ExperienceSettings,
  ) {}

  /** Embeds texts and checks the collection's recorded dimension (recording it on first use). */
  async embed(collection: string, texts: string[], m?: EntityManager): Promise<Float32Array[]> {
    const vectors = await this.embedder.embed(texts);
    await this.checkDimension(collection, vectors[0]?.length ?? (await this.embedder.dimension()), m);
    return vectors;
  }

  /** The collection's recorded dimension must be the provider's (recorded on first use). */
  private async checkDimension(collection: string, dimension: number, m?: EntityManager): Promise<void> {
    const known = this.dimensions.get(collection);
    if (known === dimension) return;
    const recorded = known ?? (await this.recordedDimension(collection, dimension, m));
    if (recorded !== dimension) {
      throw new AppError(
        500,
        ExperienceErrors.DimensionMismatch,
        `Collection '${collection}' holds ${recorded}-dimensional vectors; the embedding provider gives ${dimension}`,
      );
    }
  }

  private readonly dimensions = new Map<string, number>();

  private async recordedDimension(collection: string, dimension: number, m?: EntityManager): Promise<number> {
    const known = this.dimensions.get(collection);
    if (known !== undefined) return known;
    const work = (mm: EntityManager) =>
      this.repository.ensureCollection(mm, collection, dimension, this.embedder.name);
    const row = await (m ? work(m) : this.uow.run(work)).catch((error: Error) => {
      if (error instanceof AppError) throw error;
      throw experienceError.vectorDbDown(error.message);
    });
    await this.vectors.ensureDimension(row.dimension);
    this.dimensions.set(collection, row.dimension);
    return row.dimension;
  }

  /** The query's vector and keywords for a collection. */
  async query(collection: string, text: string) {
    return this.queryAll([collection], text);
  }

  /** The query's vector (embedded once) and keywords, checked against each collection's dimension. */
  async queryAll(collections: readonly string[], text: string) {
    const [vector] = await this.embedder.embed([text]);
    for (const collection of collections) await this.checkDimension(collection, vector.length);
    return { vector, words: keywords(text) };
  }

  /** Adds one entry inside `m` (the caller's transaction); the vector store learns it after commit via `indexed`. */
  async add(m: EntityManager, input: LessonInput): Promise<AddResult> {
    const textForVector = embeddedText(input.pattern, input.text, input.toolName);
    const [vector] = input.vector ? [input.vector] : await this.embed(input.collection, [textForVector], m);
    if (!input.vector) await this.recordedDimension(input.collection, vector.length, m);
    const neighbours = await this.neighbours(m, input.collection, vector, 8);
    const duplicate = neighbours.find(
      (n) => n.similarity >= this.settings.duplicateSimilarity && n.row.kind === input.kind,
    );
    if (duplicate) {
      await this.repository.reinforce(m, duplicate.row.id, input.sourceExamples?.[0] ?? null, 0.05);
      const entry = (await this.repository.byId(m, duplicate.row.id))!;
      return { entry, outcome: 'merged' };
    }
    const id = randomUUID();
    const words = [...new Set([...keywords(textForVector), ...(input.extraKeywords ?? [])])];
    const entry: NewEntry = {
      id,
      collection: input.collection,
      kind: input.kind,
      pattern: input.pattern,
      text: input.text,
      tier: input.tier ?? 'T3',
      confidence: clamp(input.confidence),
      workspace: input.workspace,
      toolName: input.toolName,
      agent: input.agent,
      sessionId: input.sessionId,
      tags: input.tags,
      keywords: words,
      sourceExamples: input.sourceExamples,
      meta: { prior: clamp(input.confidence), ...(input.meta ?? {}) },
      source: input.source,
      embedding: vector,
    };
    await this.repository.insertEntry(m, entry, this.vectors.writesVectorColumn);
    let supersededId: string | undefined;
    if (input.kind === 'lesson') {
      const superseded = await this.supersededBy(input, neighbours);
      if (superseded) {
        supersededId = superseded.id;
        await this.repository.archive(m, [superseded.id], 'superseded', id);
        await this.repository.addEdge(m, id, superseded.id, 'supersedes');
        await this.repository.addEvent(m, id, 'supersedes', input.text, entry.tier, {
          supersedesId: superseded.id,
          reason: NEGATION.test(input.text) !== NEGATION.test(superseded.text) ? 'contradicts' : 'refines',
          from: superseded.text,
        });
      }
    }
    for (const n of neighbours) {
      if (n.row.id === supersededId || n.similarity < 0.45) continue;
      await this.repository.addEdge(m, id, n.row.id, 'relates-to');
    }
    const row = (await this.repository.byId(m, id))!;
    return { entry: row, outcome: supersededId ? 'superseded' : 'created', supersededId };
  }

  /**
   * Seeds a store in bulk: entries known to be distinct (no duplicate, supersede or relation lookups, no
   * timeline events), embedded in batches and written in multi-row inserts, 2,000 a transaction; the
   * in-memory index learns them after each commit. For loading a corpus (the benchmark seeds 100,000
   * lessons with it); the routes write through `add`.
   */
  async seed(inputs: LessonInput[]): Promise<number> {
    const tenantId = RequestContext.tenantId();
    for (let start = 0; start < inputs.length; start += 2000) {
      const chunk = inputs.slice(start, start + 2000);
      const texts = chunk.map((i) => embeddedText(i.pattern, i.text, i.toolName));
      const entries: NewEntry[] = [];
      for (const collection of new Set(chunk.map((i) => i.collection))) {
        const mine = chunk
          .map((input, i) => ({ input, text: texts[i] }))
          .filter((x) => x.input.collection === collection);
        const vectors = await this.embed(
          collection,
          mine.map((x) => x.text),
        );
        mine.forEach(({ input, text }, i) =>
          entries.push({
            id: randomUUID(),
            collection: input.collection,
            kind: input.kind,
            pattern: input.pattern,
            text: input.text,
            tier: input.tier ?? 'T3',
            confidence: clamp(input.confidence),
            workspace: input.workspace,
            toolName: input.toolName,
            agent: input.agent,
            sessionId: input.sessionId,
            tags: input.tags,
            keywords: [...new Set([...keywords(text), ...(input.extraKeywords ?? [])])],
            sourceExamples: input.sourceExamples,
            meta: { prior: clamp(input.confidence), ...(input.meta ?? {}) },
            source: input.source,
            embedding: input.vector ?? vectors[i],
          }),
        );
      }
      await this.uow.run((m) => this.repository.insertEntries(m, entries, this.vectors.writesVectorColumn), {
        tenantId,
      });
      await this.indexed(entries.map((e) => e.id));
    }
    return inputs.length;
  }

  /**
   * The older lesson a new one replaces: the same situation (patterns alike) with different advice
   * (texts not near-duplicates): a contradiction or a refinement.
   */
  private async supersededBy(
    input: LessonInput,
    neighbours: { row: EntryRow; similarity: number }[],
  ): Promise<EntryRow | null> {
    const close = neighbours.filter((n) => n.row.kind === 'lesson' && n.similarity >= 0.55);
    if (!close.length) return null;
    const [mine, ...theirs] = await this.embedder.embed([input.pattern, ...close.map((n) => n.row.pattern)]);
    let best: EntryRow | null = null;
    let bestScore = 0;
    close.forEach((n, i) => {
      const patternSimilarity = cosine(mine, theirs[i]);
      if (patternSimilarity >= 0.85 && patternSimilarity > bestScore) {
        best = n.row;
        bestScore = patternSimilarity;
      }
    });
    return best;
  }

  /** Nearest active entries: in the caller's transaction (pgvector), or from the in-memory index (exact). */
  async neighbours(
    m: EntityManager,
    collection: string,
    vector: Float32Array,
    k: number,
  ): Promise<{ row: EntryRow; similarity: number }[]> {
    return this.vectors.neighbours(m, collection, vector, k);
  }

  /** After commit: the in-memory index (exact mode) learns the written rows. */
  async indexed(ids: string[]): Promise<void> {
    if (!ids.length) return;
    const rows = await this.uow.run((m) => this.repository.byIds(m, ids));
    this.vectors.indexed(rows);
  }
}

export const clamp = (x: number) => Math.max(0, Math.min(1, Number.isFinite(x) ? x : 0.5));
