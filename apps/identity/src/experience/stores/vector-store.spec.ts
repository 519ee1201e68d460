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
