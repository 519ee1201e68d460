import { EmbeddingsUnavailableError, OpenAiCompatibleEmbeddings } from '@arbiter/platform';
import { experienceError } from '../experience-errors';

/** Turns texts into vectors. `name` is recorded with each collection, with the dimension. */
export interface EmbeddingProvider {
  readonly name: string;
  /** Known before the first call for the local embedder; learnt from the first answer for a remote one. */
  dimension(): Promise<number>;
  embed(texts: string[]): Promise<Float32Array[]>;
}

const STOPWORDS = new Set(
  (
    'a an and are as at be by for from has have in is it its of on or that the this to was were will with ' +
    'you your i we our not no do does did so if then than but into out up can could should would ' +
    'use using used when what which who how why all any some there their them they he she his her'
  ).split(' '),
);

/** Lowercase words of a text, camelCase and snake_case split, stop words kept out. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w))
    .map(stem);
}

/** A light suffix stripper, so "failing", "failed" and "fails" meet. */
function stem(word: string): string {
  if (word.length <= 4) return word;
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ied', 'ies', 'ed']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length);
  }
  if (/(ss|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The distinct keywords of a text (for the keyword half of the ranking). */
export function keywords(text: string): string[] {
  return [...new Set(words(text))];
}

/** Share of the query's keywords found in the entry's (0..1). */
export function keywordScore(
  query: readonly string[],
  entry: readonly string[] | ReadonlySet<string>,
): number {
  if (!query.length) return 0;
  const set = entry instanceof Set ? entry : new Set(entry as readonly string[]);
  let hits = 0;
  for (const k of query) if (set.has(k)) hits++;
  return hits / query.length;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The local default: deterministic, nothing downloaded. Word unigrams and bigrams and character
 * trigrams of each word are hashed (signed feature hashing) into `dimension` buckets with sublinear
 * weights, then the vector is L2-normalised, so cosine similarity is a dot product.
 */
export class LocalHashEmbedder implements EmbeddingProvider {
  readonly name = 'local-hash-v1';
  constructor(private readonly dim: number) {}

  async dimension() {
    return this.dim;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dim);
    const add = (feature: string, weight: number) => {
      const h = fnv1a(feature);
      v[h % this.dim] += h & 0x80000000 ? -weight : weight;
    };
    const ws = words(text);
    for (let i = 0; i < ws.length; i++) {
      add(`w:${ws[i]}`, 1);
      if (i + 1 < ws.length) add(`b:${ws[i]} ${ws[i + 1]}`, 0.6);
      const padded = `^${ws[i]}$`;
      for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, 0.25);
    }
    let norm = 0;
    for (let i = 0; i < v.length; i++) {
      // sublinear term frequency, sign kept
      v[i] = Math.sign(v[i]) * Math.log1p(Math.abs(v[i]));
      norm += v[i] * v[i];
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < v.length; i++) v[i] /= norm;
    return v;
  }
}

/**
 * An OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, Ollama, vLLM…): the platform's client (the one the
 * scenario generator uses too), its failures reported as this service's `MODEL_UNAVAILABLE`-style error.
 */
export class OpenAiCompatibleEmbedder implements EmbeddingProvider {
  private readonly client: OpenAiCompatibleEmbeddings;

  constructor(baseUrl: string, model: string, apiKey: string, timeoutMs: number) {
    this.client = new OpenAiCompatibleEmbeddings({ baseUrl, model, apiKey, timeoutMs });
  }

  get name(): string {
    return this.client.name;
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof EmbeddingsUnavailableError) throw experienceError.modelDown(error.message);
      throw error;
    }
  }

  dimension(): Promise<number> {
    return this.call(() => this.client.dimension());
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return this.call(() => this.client.embed(texts));
  }
}
