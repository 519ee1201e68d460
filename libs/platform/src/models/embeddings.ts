/**
 * Embeddings from a model, over the OpenAI-compatible protocol (`POST {baseUrl}/embeddings`: OpenAI, Ollama,
 * vLLM, LM Studio…). The one client every service uses (the experience service's lesson vectors, the
 * scenario generator's near-duplicate removal); each keeps its own local default that needs no model and
 * says which path answered. Vectors come back L2-normalised, so a cosine is a dot product.
 */

/** The endpoint could not give one vector per text (down, refused, a malformed answer). */
export class EmbeddingsUnavailableError extends Error {
  override readonly name = 'EmbeddingsUnavailableError';
}

/** Turns texts into vectors. `name` says which model (or local path) made them. */
export interface TextEmbedder {
  readonly name: string;
  /** Known before the first call for a local embedder; learnt from the first answer for a remote one. */
  dimension(): Promise<number>;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface OpenAiEmbeddingsOptions {
  /** `https://host/v1` (the `/embeddings` path is appended) */
  baseUrl: string;
  model: string;
  /** sent as a bearer token when not empty */
  apiKey?: string;
  timeoutMs: number;
}

/** L2-normalises a vector in place (a zero vector stays zero). */
export function normalizeVector(v: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

export class OpenAiCompatibleEmbeddings implements TextEmbedder {
  readonly name: string;
  private dim: number | undefined;

  constructor(private readonly options: OpenAiEmbeddingsOptions) {
    this.name = `openai:${options.model}`;
  }

  async dimension(): Promise<number> {
    if (this.dim === undefined) await this.embed(['dimension probe']);
    return this.dim!;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { baseUrl, model, apiKey, timeoutMs } = this.options;
    let res: Response;
    try {
      res = await fetch(`${baseUrl.replace(/\/+$/, '')}/embeddings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        body: JSON.stringify({ model, input: texts }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new EmbeddingsUnavailableError(`embeddings: ${(error as Error).message}`);
    }
    if (!res.ok) throw new EmbeddingsUnavailableError(`embeddings answered ${res.status}`);
    const body = (await res.json().catch(() => null)) as {
      data?: { embedding?: unknown; index?: number }[];
    } | null;
    const data = body?.data;
    if (!Array.isArray(data) || data.length !== texts.length)
      throw new EmbeddingsUnavailableError('embeddings answer without one vector per input');
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((d) => {
      const e = d.embedding;
      if (!Array.isArray(e) || !e.length || !e.every((x) => typeof x === 'number' && Number.isFinite(x)))
        throw new EmbeddingsUnavailableError('embeddings answer with an empty or non-numeric vector');
      if (this.dim === undefined) this.dim = e.length;
      if (e.length !== this.dim)
        throw new EmbeddingsUnavailableError(`embedding of ${e.length} dimensions, expected ${this.dim}`);
      return normalizeVector(Float32Array.from(e as number[]));
    });
  }
}
