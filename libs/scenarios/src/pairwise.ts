/**
 * All-pairs (pairwise) combinations: every value of every column meets every value of every other column
 * in at least one combination, with far fewer combinations than the cartesian product. Greedy: each new
 * combination starts from the first uncovered pair and fills the other columns with the value covering
 * the most uncovered pairs (ties broken by the seeded PRNG).
 */
import { Prng } from './prng';

export function pairwise(domainSizes: number[], prng: Prng, maxCombinations = 10_000): number[][] {
  const k = domainSizes.length;
  if (k === 0 || domainSizes.some((n) => n === 0)) return [];
  if (k === 1) return Array.from({ length: domainSizes[0] }, (_, v) => [v]);
  // uncovered[i][j] = set of a*size_j+b still uncovered for columns i<j
  const uncovered: Set<number>[][] = [];
  let remaining = 0;
  for (let i = 0; i < k; i++) {
    uncovered[i] = [];
    for (let j = i + 1; j < k; j++) {
      const s = new Set<number>();
      for (let a = 0; a < domainSizes[i]; a++)
        for (let b = 0; b < domainSizes[j]; b++) s.add(a * domainSizes[j] + b);
      uncovered[i][j] = s;
      remaining += s.size;
    }
  }
  const out: number[][] = [];
  while (remaining > 0 && out.length < maxCombinations) {
    // the first uncovered pair seeds the combination
    let seedI = 0;
    let seedJ = 1;
    let seedPair = -1;
    outer: for (let i = 0; i < k; i++)
      for (let j = i + 1; j < k; j++)
        if (uncovered[i][j].size) {
          seedI = i;
          seedJ = j;
          seedPair = uncovered[i][j].values().next().value as number;
          break outer;
        }
    const combo = new Array<number>(k).fill(-1);
    combo[seedI] = Math.floor(seedPair / domainSizes[seedJ]);
    combo[seedJ] = seedPair % domainSizes[seedJ];
    for (const c of prng.shuffle(Array.from({ length: k }, (_, i) => i))) {
      if (combo[c] >= 0) continue;
      let best = -1;
      let bestGain = -1;
      const start = prng.int(domainSizes[c]);
      for (let o = 0; o < domainSizes[c]; o++) {
        const v = (start + o) % domainSizes[c];
        let gain = 0;
        for (let d = 0; d < k; d++) {
          if (d === c || combo[d] < 0) continue;
          const [i, j, a, b] = d < c ? [d, c, combo[d], v] : [c, d, v, combo[d]];
          if (uncovered[i][j].has(a * domainSizes[j] + b)) gain++;
        }
        if (gain > bestGain) {
          bestGain = gain;
          best = v;
        }
      }
      combo[c] = best;
    }
    for (let i = 0; i < k; i++)
      for (let j = i + 1; j < k; j++)
        if (uncovered[i][j].delete(combo[i] * domainSizes[j] + combo[j])) remaining--;
    out.push(combo);
  }
  return out;
}
