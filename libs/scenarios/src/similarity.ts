/**
 * Near-duplicate removal by vector similarity. The default embedding is local and deterministic (no
 * model): the input facts flattened to `path = value` leaves, each leaf hashed (FNV-1a) into a fixed
 * number of dimensions — a string or boolean leaf by its path and value, a number by its path with a
 * signed log-scaled magnitude, plus a shared dimension per path so facts naming the same inputs lean
 * together — then normalised; two scenarios are near duplicates when the cosine of their vectors is at
 * or above the threshold. A host with an embedding model passes its own `embed` instead.
 */

export type Embed = (facts: Record<string, unknown>) => Float64Array;

export const LOCAL_EMBEDDING_DIMENSIONS = 128;
/** the name plans record for the local embedding (no model) */
export const LOCAL_EMBEDDING_NAME = 'local-facts-hash-v1';

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function leaves(value: unknown, path: string, out: [string, unknown][], depth = 0): void {
  if (depth > 20) return;
  if (value !== null && typeof value === 'object') {
    if (Array.isArray(value)) value.forEach((v, i) => leaves(v, `${path}[${i}]`, out, depth + 1));
    else
      for (const k of Object.keys(value).sort())
        leaves((value as Record<string, unknown>)[k], path ? `${path}.${k}` : k, out, depth + 1);
    return;
  }
  out.push([path, value]);
}

/** The local embedding: feature hashing of the facts' leaves, L2-normalised. */
export function localEmbedding(
  facts: Record<string, unknown>,
  dimensions = LOCAL_EMBEDDING_DIMENSIONS,
): Float64Array {
  const v = new Float64Array(dimensions);
  const list: [string, unknown][] = [];
  leaves(facts, '', list);
  for (const [path, value] of list) {
    v[fnv1a(`p:${path}`) % dimensions] += 1;
    if (typeof value === 'number' && Number.isFinite(value)) {
      const h = fnv1a(`n:${path}`);
      const sign = h & 1 ? 1 : -1;
      v[h % dimensions] += sign * Math.sign(value) * Math.log10(1 + Math.abs(value));
    } else {
      v[fnv1a(`v:${path}=${JSON.stringify(value)}`) % dimensions] += 1;
    }
  }
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += v[i] * v[i];
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dimensions; i++) v[i] /= norm;
  return v;
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Indexes of the vectors to keep, in order: a vector is dropped when its cosine with one kept before it,
 * or with one of `against` (vectors already kept elsewhere), reaches `threshold` (0 < threshold ≤ 1).
 * Deterministic: the first of a group of near duplicates stays.
 */
export function keepDistinct(
  vectors: readonly ArrayLike<number>[],
  threshold: number,
  against: readonly ArrayLike<number>[] = [],
): number[] {
  if (!(threshold > 0 && threshold <= 1)) throw new RangeError('similarity threshold must be in (0, 1]');
  const kept: number[] = [];
  const seen: ArrayLike<number>[] = [...against];
  vectors.forEach((v, i) => {
    if (seen.some((k) => cosine(k, v) >= threshold)) return;
    kept.push(i);
    seen.push(v);
  });
  return kept;
}

/**
 * Indexes of the facts to keep, in order: a fact set is dropped when its cosine with one kept before it
 * reaches `threshold` (0 < threshold ≤ 1). Deterministic: the first of a group of near duplicates stays.
 */
export function dedupBySimilarity(
  facts: Record<string, unknown>[],
  threshold: number,
  embed: Embed = (f) => localEmbedding(f),
): number[] {
  if (!(threshold > 0 && threshold <= 1)) throw new RangeError('similarity threshold must be in (0, 1]');
  return keepDistinct(facts.map(embed), threshold);
}
