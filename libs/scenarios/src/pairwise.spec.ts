import { pairwise } from './pairwise';
import { Prng } from './prng';

describe('pairwise', () => {
  it('covers every pair of values with fewer combinations than the cartesian product', () => {
    const sizes = [5, 5, 4, 3];
    const combos = pairwise(sizes, new Prng(7));
    for (let i = 0; i < sizes.length; i++)
      for (let j = i + 1; j < sizes.length; j++)
        for (let a = 0; a < sizes[i]; a++)
          for (let b = 0; b < sizes[j]; b++) expect(combos.some((c) => c[i] === a && c[j] === b)).toBe(true);
    expect(combos.length).toBeLessThan(5 * 5 * 4 * 3);
    expect(combos.length).toBeLessThanOrEqual(40);
  });
  it('is deterministic for a seed', () => {
    expect(pairwise([4, 3, 3], new Prng(3))).toEqual(pairwise([4, 3, 3], new Prng(3)));
  });
});
