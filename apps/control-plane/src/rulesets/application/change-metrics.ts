import { Injectable } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';

/**
 * Cache and propagation metrics, exported through OpenTelemetry (meter `arbiter-control-plane`) and
 * as JSON at `GET /api/v1/control-plane/metrics`:
 * `rule.cache.hits`, `rule.cache.misses`, `rule.cache.evictions` (counters, attribute `tenant`),
 * `rule.cache.size` (observable gauge), `rule.cache.reload.lag` (histogram, ms from the change's
 * `occurredAt` to this node's eviction), `ruleset.changes.published` / `ruleset.changes.received`.
 */
@Injectable()
export class ChangeMetrics {
  private readonly meter = metrics.getMeter('arbiter-control-plane');
  private readonly hitsCounter = this.meter.createCounter('rule.cache.hits', {
    description: 'Rule set cache hits',
  });
  private readonly missesCounter = this.meter.createCounter('rule.cache.misses', {
    description: 'Rule set cache misses',
  });
  private readonly evictionsCounter = this.meter.createCounter('rule.cache.evictions', {
    description: 'Rule set cache evictions (invalidation by change event, poll or explicit invalidate)',
  });
  private readonly lagHistogram = this.meter.createHistogram('rule.cache.reload.lag', {
    description: 'Hot-reload lag: time from a rule set change to its eviction on this node',
    unit: 'ms',
  });
  private readonly publishedCounter = this.meter.createCounter('ruleset.changes.published');
  private readonly receivedCounter = this.meter.createCounter('ruleset.changes.received');
  private sizeProvider: () => number = () => 0;

  hits = 0;
  misses = 0;
  evictions = 0;
  published = 0;
  received = 0;
  pollRuns = 0;
  private readonly lags: number[] = [];

  constructor() {
    this.meter
      .createObservableGauge('rule.cache.size', { description: 'Entries in the rule set cache' })
      .addCallback((result) => result.observe(this.sizeProvider()));
  }

  bindSize(provider: () => number) {
    this.sizeProvider = provider;
  }

  hit(tenant: string) {
    this.hits++;
    this.hitsCounter.add(1, { tenant });
  }
  miss(tenant: string) {
    this.misses++;
    this.missesCounter.add(1, { tenant });
  }
  evicted(tenant: string, reason: string) {
    this.evictions++;
    this.evictionsCounter.add(1, { tenant, reason });
  }
  lag(ms: number) {
    const value = Math.max(0, ms);
    this.lags.push(value);
    if (this.lags.length > 1000) this.lags.shift();
    this.lagHistogram.record(value);
  }
  publishedOne() {
    this.published++;
    this.publishedCounter.add(1);
  }
  receivedOne() {
    this.received++;
    this.receivedCounter.add(1);
  }

  snapshot() {
    const sorted = [...this.lags].sort((a, b) => a - b);
    const q = (p: number) =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
    return {
      cache: { hits: this.hits, misses: this.misses, evictions: this.evictions, size: this.sizeProvider() },
      hotReloadLagMs: {
        count: sorted.length,
        p50: q(0.5),
        p99: q(0.99),
        max: sorted.length ? sorted[sorted.length - 1] : null,
      },
      changes: { published: this.published, received: this.received, pollRuns: this.pollRuns },
    };
  }
}
