import murmurhash from 'murmurhash';
import { canaryBucket, inCanaryShare } from './canary-bucket';

describe('canaryBucket', () => {
  it('is MurmurHash3 x86_32 over UTF-8 (published vectors)', () => {
    expect(murmurhash.v3('', 0)).toBe(0);
    expect(murmurhash.v3('hello', 0)).toBe(0x248bfa47);
    expect(murmurhash.v3('The quick brown fox jumps over the lazy dog', 0)).toBe(0x2e4ff723);
    expect(murmurhash.v3('Hello, world!', 0x9747b28c)).toBe(0x24884cba);
    expect(murmurhash.v3('ππππππππ', 0x9747b28c)).toBe(0xd58063c1);
  });

  it('hashes workflowName + ":" + key with seed 0, modulo 100 (vectors other runtimes must match)', () => {
    const vectors: [string, string, number][] = [
      ['loan', 'alice', 14], // murmur3_32('loan:alice', 0) = 1630735814
      ['loan', 'bob', 32], // 1925796532
      ['loan', 'tenant-42', 62], // 1634161062
      ['pricing', 'c0ffee', 13], // 2752449313
      ['pricing', 'Zürich', 0], // 3309408900 (UTF-8 bytes)
      ['checkout', '', 72], // 147932472
    ];
    for (const [workflow, key, bucket] of vectors) expect(canaryBucket(workflow, key)).toBe(bucket);
  });

  it('hashes keys longer than the scratch buffer the same way as short ones', () => {
    const long = 'ü'.repeat(5_000);
    expect(canaryBucket('loan', long)).toBe(murmurhash.v3(`loan:${long}`, 0) % 100);
  });

  it('depends on the workflow: the same key lands in different buckets for different workflows', () => {
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
    const differing = keys.filter((k) => canaryBucket('loan', k) !== canaryBucket('pricing', k));
    expect(differing.length).toBeGreaterThan(150);
  });

  it('raising the percentage never removes a key from the canary (3,000 keys, every step 1..100)', () => {
    const keys = Array.from({ length: 3_000 }, (_, i) => `subject-${i}-${(i * 7919) % 104729}`);
    const removed: string[] = [];
    let previous = new Set<string>();
    for (let percentage = 1; percentage <= 100; percentage++) {
      const current = new Set(keys.filter((k) => inCanaryShare('loan', k, percentage)));
      for (const key of previous) if (!current.has(key)) removed.push(`${key}@${percentage}`);
      previous = current;
    }
    expect(removed).toEqual([]);
    expect(previous.size).toBe(keys.length);
  });

  it('spreads keys evenly: each percentage routes close to that share of 10,000 keys', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `correlation-${i}`);
    for (const percentage of [1, 5, 10, 25, 50, 90]) {
      const share = keys.filter((k) => inCanaryShare('pricing', k, percentage)).length / keys.length;
      expect(Math.abs(share - percentage / 100)).toBeLessThan(0.02);
    }
    expect(keys.some((k) => inCanaryShare('pricing', k, 0))).toBe(false);
  });
});
