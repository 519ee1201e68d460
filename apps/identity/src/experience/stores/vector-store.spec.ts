import { LocalHashEmbedder } from '../models/embedding';
import type { EntryRow } from '../persistence/experience.repository';
import { Candidate, VectorMatrix } from './vector-store';

const embedder = new LocalHashEmbedder(64);
const candidate = (id: string, text: string): Candidate => ({
  row: { id } as EntryRow,
  vector: embedder.embedOne(text),
  keywordSet: new Set(),
  similarity: 0,
});
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('VectorMatrix (the in-memory exact index, posting lists)', () => {
  it('ranks exactly like a brute-force scan through inserts, updates, deletes and growth', () => {
    const matrix = new VectorMatrix();
    const all = new Map<string, Candidate>();
    for (let i = 0; i < 300; i++) {
      const c = candidate(`e${i}`, `lesson ${i} about tool ${i % 7} and error ${i % 13} with fix ${i % 5}`);
      matrix.set(c);
      all.set(c.row.id, c);
    }
    for (let i = 0; i < 300; i += 3) {
      matrix.delete(`e${i}`);
      all.delete(`e${i}`);
    }
    const updated = candidate('e1', 'completely different words now');
    matrix.set(updated);
    all.set('e1', updated);
    expect(matrix.size).toBe(all.size);
    for (const q of ['tool 3 error 5', 'fix 2 lesson', 'completely different']) {
      const query = embedder.embedOne(q);
      const expected = [...all.values()]
        .map((c) => ({ id: c.row.id, s: dot(query, c.vector) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10);
      const got = matrix.search(query, 10);
      expect(got.map((c) => c.similarity)).toEqual(expected.map((e) => expect.closeTo(e.s, 5)));
      expect(new Set(got.map((c) => c.row.id)).size).toBe(10);
    }
    expect(matrix.search(embedder.embedOne('completely different words now'), 1)[0].row.id).toBe('e1');
  });

  it('an update with the same vector replaces the row in place; deleting everything leaves nothing to find', () => {
    const matrix = new VectorMatrix();
    const first = candidate('a', 'npm test needs a build first');
    matrix.set(first);
    matrix.set({
      ...first,
      row: { id: 'a', tier: 'T2' } as EntryRow,
      vector: new Float32Array(first.vector),
    });
    expect(matrix.size).toBe(1);
    const [hit] = matrix.search(first.vector, 5);
    expect(hit.row.tier).toBe('T2');
    expect(hit.similarity).toBeCloseTo(1, 5);
    for (let i = 0; i < 100; i++) matrix.set(candidate(`x${i}`, `entry ${i} of a batch`));
    for (let i = 0; i < 100; i++) matrix.delete(`x${i}`);
    matrix.delete('a');
    expect(matrix.size).toBe(0);
    expect(matrix.search(first.vector, 5)).toEqual([]);
    matrix.set(candidate('b', 'after the purge'));
    expect(matrix.search(embedder.embedOne('after the purge'), 5).map((c) => c.row.id)).toEqual(['b']);
  });
});

describe('VectorMatrix search is exact (blocks, quantised postings, candidates scored again)', () => {
  const random = (() => {
    let s = 7;
    return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  })();
  /** A sparse normalised vector like the local embedder's (about `nonZero` of 256 buckets), or scaled. */
  const sparse = (nonZero: number, scale = 1) => {
    const v = new Float32Array(256);
    for (let i = 0; i < nonZero; i++) v[Math.floor(random() * (i < 12 ? 16 : 256))] += random() - 0.4;
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < v.length; i++) v[i] = (v[i] / norm) * scale;
    return v;
  };
  const make = (id: string, vector: Float32Array): Candidate => ({
    row: { id } as EntryRow,
    vector,
    keywordSet: new Set(),
    similarity: 0,
  });
  const plainDot = (a: Float32Array, b: Float32Array) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += a[i] * b[i];
    return s;
  };
  /** The reference: a plain dot product over every dimension, best first, ties in insertion order. */
  const bruteForce = (all: Map<string, Candidate>, query: Float32Array, k: number) =>
    [...all.values()]
      .map((c, order) => ({ id: c.row.id, order, s: plainDot(query, c.vector) }))
      .sort((a, b) => b.s - a.s || a.order - b.order)
      .slice(0, k)
      .map((e) => `${e.id}=${e.s}`);

  it('returns the same k best, with the same float64 scores, as a brute-force dot product', () => {
    const matrix = new VectorMatrix();
    const all = new Map<string, Candidate>(); // insertion order = slot order
    const put = (c: Candidate) => {
      const old = all.get(c.row.id);
      if (old && !old.vector.every((x, i) => x === c.vector[i])) all.delete(c.row.id); // moves to a new slot
      all.set(c.row.id, c);
      matrix.set(c);
    };
    // three blocks of slots; duplicates (equal scores: ties) and near-duplicates among them
    for (let i = 0; i < 10_000; i++) {
      const vector = i % 97 === 5 ? all.get(`e${i - 5}`)!.vector : sparse(20 + (i % 50));
      if (i % 89 === 3) vector[3] += 1e-7;
      put(make(`e${i}`, new Float32Array(vector)));
    }
    const queries = Array.from({ length: 40 }, (_, i) =>
      i % 3 ? sparse(10 + (i % 30)) : all.get(`e${i * 37}`)!.vector,
    );
    const check = () => {
      for (const [i, query] of queries.entries()) {
        const k = [1, 5, 30, 64][i % 4];
        const got = matrix.search(query, k).map((c) => `${c.row.id}=${c.similarity}`);
        expect(got).toEqual(bruteForce(all, query, k));
      }
    };
    check();
    // deletes (enough to compact the lists), updates to a new vector and to the same one
    for (let i = 0; i < 10_000; i += 2) {
      matrix.delete(`e${i}`);
      all.delete(`e${i}`);
    }
    for (let i = 1; i < 2_000; i += 10) put(make(`e${i}`, sparse(40)));
    for (let i = 3; i < 2_000; i += 10) put(make(`e${i}`, new Float32Array(all.get(`e${i}`)!.vector)));
    expect(matrix.size).toBe(all.size);
    check();
    // a vector that is not normalised widens the postings' range; the answers stay exact
    put(make('wide', sparse(30, 3.5)));
    check();
    expect(matrix.search(all.get('wide')!.vector, 1)[0].row.id).toBe('wide');
  });

  it('finds an entry whose rounded postings rank it below one that is really worse', () => {
    // postings hold values in steps of 1 / (2^19 - 1): A rounds down twice, B up once, yet A is closer
    const step = 1 / ((1 << 19) - 1);
    const pair = (x: number, y: number) => {
      const v = new Float32Array(256);
      v[0] = x * step;
      v[1] = y * step;
      v[2] = Math.sqrt(1 - v[0] ** 2 - v[1] ** 2);
      return v;
    };
    const a = make('a', pair(200_000.49, 150_000.49));
    const b = make('b', pair(200_000.51, 149_999.6));
    const query = new Float32Array(256);
    query[0] = query[1] = Math.SQRT1_2;
    expect(dot(query, a.vector)).toBeGreaterThan(dot(query, b.vector));
    const matrix = new VectorMatrix();
    matrix.set(b);
    matrix.set(a);
    expect(matrix.search(query, 1).map((c) => c.row.id)).toEqual(['a']);
    expect(matrix.search(query, 2).map((c) => c.row.id)).toEqual(['a', 'b']);
  });
});
