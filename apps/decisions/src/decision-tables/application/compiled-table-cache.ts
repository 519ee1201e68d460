import { CompiledDecisionTable } from '@arbiter/rule-engine';

export interface CacheMetrics {
  size: number;
  capacity: number;
  hits: number;
  misses: number;
  evictions: number;
  invalidations: number;
  compilations: number;
}

/**
 * Bounded LRU of compiled tables keyed by tenant, table and version (a Map keeps insertion order:
 * a hit re-inserts, the oldest key is evicted), plus a pointer per table to its latest version so
 * the hot evaluate path touches no database. Change events drop a table's entries.
 */
export class CompiledTableCache {
  private readonly entries = new Map<string, CompiledDecisionTable>();
  private readonly latest = new Map<string, number>();
  private readonly counters = { hits: 0, misses: 0, evictions: 0, invalidations: 0, compilations: 0 };

  constructor(private readonly capacity: number) {}

  private static key(tenantId: string, id: string, version: number): string {
    return `${tenantId}\u0000${id}\u0000${version}`;
  }

  latestVersion(tenantId: string, id: string): number | undefined {
    return this.latest.get(`${tenantId}\u0000${id}`);
  }

  get(tenantId: string, id: string, version: number): CompiledDecisionTable | undefined {
    const key = CompiledTableCache.key(tenantId, id, version);
    const hit = this.entries.get(key);
    if (hit === undefined) {
      this.counters.misses++;
      return undefined;
    }
    this.counters.hits++;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  put(tenantId: string, id: string, version: number, table: CompiledDecisionTable, isLatest: boolean): void {
    this.counters.compilations++;
    if (isLatest) this.latest.set(`${tenantId}\u0000${id}`, version);
    this.entries.set(CompiledTableCache.key(tenantId, id, version), table);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.counters.evictions++;
      const [t, i, v] = oldest.split('\u0000');
      if (this.latest.get(`${t}\u0000${i}`) === Number(v)) this.latest.delete(`${t}\u0000${i}`);
    }
  }

  /** Forget a table's latest pointer and every compiled version (it changed or was deleted). */
  invalidate(tenantId: string, id: string): void {
    this.counters.invalidations++;
    this.latest.delete(`${tenantId}\u0000${id}`);
    const prefix = `${tenantId}\u0000${id}\u0000`;
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  metrics(): CacheMetrics {
    return { size: this.entries.size, capacity: this.capacity, ...this.counters };
  }
}
