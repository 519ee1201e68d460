import { CompiledDecisionTable } from '@arbiter/rule-engine';
import { CompiledTableCache } from './compiled-table-cache';

const compiled = (label: string) => ({ label }) as unknown as CompiledDecisionTable;

describe('CompiledTableCache', () => {
  it('finds a table by tenant, id and version, and the latest version through its pointer', () => {
    const cache = new CompiledTableCache(10);
    const v2 = compiled('v2');
    cache.put('t1', 'a', 1, compiled('v1'), false);
    cache.put('t1', 'a', 2, v2, true);
    expect(cache.latestVersion('t1', 'a')).toBe(2);
    expect(cache.get('t1', 'a', 2)).toBe(v2);
    expect(cache.get('t2', 'a', 2)).toBeUndefined();
    expect(cache.latestVersion('t2', 'a')).toBeUndefined();
    expect(cache.metrics()).toMatchObject({ size: 2, capacity: 10, hits: 1, misses: 1, compilations: 2 });
  });

  it('evicts the least recently used entry (a hit refreshes it) and drops a latest pointer with it', () => {
    const cache = new CompiledTableCache(2);
    cache.put('t', 'a', 1, compiled('a'), true);
    cache.put('t', 'b', 1, compiled('b'), true);
    cache.get('t', 'a', 1);
    cache.put('t', 'c', 1, compiled('c'), true);
    expect(cache.get('t', 'b', 1)).toBeUndefined();
    expect(cache.latestVersion('t', 'b')).toBeUndefined();
    expect(cache.get('t', 'a', 1)).toBeDefined();
    expect(cache.metrics()).toMatchObject({ size: 2, evictions: 1 });
  });

  it("invalidation forgets every version of one table and nobody else's", () => {
    const cache = new CompiledTableCache(10);
    cache.put('t', 'a', 1, compiled('a1'), false);
    cache.put('t', 'a', 2, compiled('a2'), true);
    cache.put('t', 'ab', 1, compiled('ab'), true);
    cache.put('u', 'a', 1, compiled('other tenant'), true);
    cache.invalidate('t', 'a');
    expect(cache.latestVersion('t', 'a')).toBeUndefined();
    expect(cache.get('t', 'a', 1)).toBeUndefined();
    expect(cache.get('t', 'a', 2)).toBeUndefined();
    expect(cache.get('t', 'ab', 1)).toBeDefined();
    expect(cache.get('u', 'a', 1)).toBeDefined();
    expect(cache.metrics()).toMatchObject({ size: 2, invalidations: 1 });
  });
});
