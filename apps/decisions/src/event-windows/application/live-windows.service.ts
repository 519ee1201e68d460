import { Subjects } from '@arbiter/contracts';
import { LATE, partitionOf, WindowContents, WindowEngine, WindowResult } from '@arbiter/event-windows';
import { EventBus, EventSubscription, RequestContext } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventWindowsSettings } from '../event-windows.settings';
import type { EventWindowConfigEntity } from '../persistence/entities';
import { windowDefinition } from './config-model';
import { EventBatch, readBatch } from './event-batch';
import { EventWindowConfigService } from './event-window-config.service';
import { EventWindowMetrics } from './metrics';
import { windowFacts, windowView } from './window-views';

/** Inbound events of clients: `arbiter.events.<tenant>.<config>`, body `{ Events: [...] }`, an array or one event. */
export const INBOUND_SUBJECTS = 'arbiter.events.*.*';
/** Events routed to the replica holding their key's partition: `arbiter.cep.partition.<p>`. */
export const partitionSubject = (p: number) => `arbiter.cep.partition.${p}`;

/** Events per partition message: well under NATS's 1 MiB message limit for ordinary values. */
const PART_SIZE = 1000;

interface PartitionMessage {
  tenantId: string;
  configId: string;
  keys: string[];
  timestamps: number[];
  values: unknown[];
}

interface Live {
  config: EventWindowConfigEntity;
  engine: WindowEngine;
  /** Closed windows collected while one ingest call runs. */
  sink: Record<string, unknown>[] | null;
}

/**
 * Live windows, in memory on this replica, for the partitions it owns (`EventWindows:OwnedPartitions` of
 * `EventWindows:Partitions`, by FNV-1a hash of the correlation key).
 *
 * Scaling out uses NATS, not a home-made cluster: every replica subscribes to the inbound subject
 * `arbiter.events.<tenant>.<config>` in the queue group `cep-router` (each message reaches one replica),
 * which splits the batch by partition and publishes each part on `arbiter.cep.partition.<p>`; the replica
 * owning `p` subscribes to that subject and applies the events, so all events of a key meet in one engine.
 * `POST /{id}/events` does the same: owned keys are applied at once (their windows are in the answer), the
 * others forwarded. The clock (`EventWindows:ClockIntervalMs`) closes windows and expires keys; closed
 * windows of `OnClose` configurations are published on `arbiter.event-window.closed`. A configuration
 * change drops its windows on every replica (`arbiter.event-window.changed`).
 */
@Injectable()
export class LiveWindowsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventWindows');
  private readonly live = new Map<string, Live>();
  private readonly owned: Set<number>;
  private readonly subscriptions: EventSubscription[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(EventWindowConfigService) private readonly configs: EventWindowConfigService,
    @Inject(EventWindowsSettings) private readonly settings: EventWindowsSettings,
    @Inject(EventWindowMetrics) private readonly metrics: EventWindowMetrics,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {
    this.owned = settings.owned();
  }

  async onApplicationBootstrap() {
    this.subscriptions.push(
      await this.bus.subscribe(Subjects.EventWindowChanged, (e) => {
        this.live.delete(liveKey(e.data.tenantId, e.data.configId));
      }),
      await this.bus.subscribe(INBOUND_SUBJECTS, (e) => this.route(e.type, e.data), { queue: 'cep-router' }),
    );
    for (const p of this.owned)
      this.subscriptions.push(
        await this.bus.subscribe(partitionSubject(p), (e) => this.applyRouted(e.data as PartitionMessage)),
      );
    this.timer = setInterval(() => this.tick(this.clock()), this.settings.clockIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown() {
    if (this.timer) clearInterval(this.timer);
    for (const s of this.subscriptions.splice(0)) await s.unsubscribe().catch(() => undefined);
  }

  /** The live clock: the wall clock minus `EventWindows:ClockDelayMs`. */
  clock(): number {
    return Date.now() - this.settings.clockDelayMs;
  }

  /** Advances every live engine to `now`. */
  tick(now: number) {
    for (const l of this.live.values()) l.engine.advance(now);
  }

  partitionOf(key: string): number {
    return partitionOf(key, this.settings.partitions);
  }

  ownsKey(key: string): boolean {
    return this.owned.has(this.partitionOf(key));
  }

  /** `POST /{id}/events`. */
  async ingest(id: string, events: unknown[]) {
    const tenantId = RequestContext.tenantId();
    const config = await this.configs.load(id, tenantId);
    const batch = readBatch(events, config, this.settings.maxBatchEvents);
    const l = this.liveOf(config);
    const results: Record<string, unknown>[] = new Array(batch.keys.length);
    const forward = new Map<number, PartitionMessage>();
    const closed: Record<string, unknown>[] = [];
    l.sink = closed;
    let accepted = 0;
    let late = 0;
    try {
      for (let i = 0; i < batch.keys.length; i++) {
        const key = batch.keys[i];
        const t = batch.timestamps[i];
        const result: Record<string, unknown> = { Index: i, Key: key, Timestamp: new Date(t).toISOString() };
        results[i] = result;
        const p = this.partitionOf(key);
        if (!this.owned.has(p)) {
          let m = forward.get(p);
          if (!m) forward.set(p, (m = { tenantId, configId: id, keys: [], timestamps: [], values: [] }));
          m.keys.push(key);
          m.timestamps.push(t);
          m.values.push(batch.values[i]);
          result.Status = 'Forwarded';
          continue;
        }
        if (l.engine.add(key, t, batch.values[i]) === LATE) {
          late++;
          result.Status = 'Late';
          continue;
        }
        accepted++;
        result.Status = 'Accepted';
        if (config.emitMode === 'OnUpdate') {
          const w = l.engine.lastWindow()!;
          result.Window = windowView(w);
          this.metrics.evaluated('live', w.count);
        }
      }
    } finally {
      l.sink = null;
    }
    this.metrics.processed('live', accepted, late);
    let forwarded = 0;
    for (const [p, m] of forward) {
      forwarded += m.keys.length;
      await this.publishPart(p, m);
    }
    return {
      Results: results,
      Closed: closed,
      Processed: batch.keys.length,
      Accepted: accepted,
      Late: late,
      Evicted: l.engine.counters.evicted,
      Forwarded: forwarded,
    };
  }

  /** `GET /{id}/keys/{key}/window`: the key's current window on this replica, and as rule facts. */
  async keyWindow(id: string, key: string) {
    const config = await this.configs.load(id);
    const partition = this.partitionOf(key);
    const l = this.live.get(liveKey(config.tenantId, config.id));
    if (l) l.engine.advance(this.clock());
    const current = l?.engine.current(key, this.settings.maxContents) ?? null;
    if (current) this.metrics.evaluated('live', current.window.count);
    return {
      ConfigId: config.id,
      Key: key,
      Partition: partition,
      Owned: this.owned.has(partition),
      Window: current ? windowView(current.window, current.contents) : null,
      Facts: windowFacts(key, current?.window ?? null, config.aggregates),
    };
  }

  /** Inbound NATS message on `arbiter.events.<tenant>.<config>`: split by partition and route. */
  private async route(subject: string, data: unknown) {
    const [, , tenantId, configId] = subject.split('.');
    if (!tenantId || !configId) return;
    const events = Array.isArray(data)
      ? data
      : data && typeof data === 'object' && Array.isArray((data as { Events?: unknown }).Events)
        ? (data as { Events: unknown[] }).Events
        : [data];
    let config: EventWindowConfigEntity;
    let batch: EventBatch;
    try {
      config = await this.configs.load(configId, tenantId);
      batch = readBatch(events, config, this.settings.maxBatchEvents);
    } catch (error) {
      this.logger.warn({ msg: 'inbound events refused', subject, err: String((error as Error).message) });
      return;
    }
    const parts = new Map<number, PartitionMessage>();
    for (let i = 0; i < batch.keys.length; i++) {
      const p = this.partitionOf(batch.keys[i]);
      let m = parts.get(p);
      if (!m) parts.set(p, (m = { tenantId, configId, keys: [], timestamps: [], values: [] }));
      m.keys.push(batch.keys[i]);
      m.timestamps.push(batch.timestamps[i]);
      m.values.push(batch.values[i]);
    }
    for (const [p, m] of parts) await this.publishPart(p, m);
  }

  /** One partition's events, in messages of at most `PART_SIZE` events (NATS caps a message at 1 MiB). */
  private async publishPart(p: number, m: PartitionMessage) {
    for (let i = 0; i < m.keys.length; i += PART_SIZE) {
      const end = i + PART_SIZE;
      await this.bus.publish(
        partitionSubject(p),
        {
          tenantId: m.tenantId,
          configId: m.configId,
          keys: m.keys.slice(i, end),
          timestamps: m.timestamps.slice(i, end),
          values: m.values.slice(i, end),
        },
        { tenantId: m.tenantId },
      );
    }
  }

  /** Events of an owned partition, from the router or another replica's HTTP ingest. */
  private async applyRouted(m: PartitionMessage) {
    if (!m || !Array.isArray(m.keys)) return;
    const key = liveKey(m.tenantId, m.configId);
    let l = this.live.get(key);
    if (!l) {
      try {
        l = this.liveOf(await this.configs.load(m.configId, m.tenantId));
      } catch {
        return; // deleted meanwhile
      }
    }
    let accepted = 0;
    let late = 0;
    for (let i = 0; i < m.keys.length; i++) {
      if (!this.ownsKey(m.keys[i])) continue;
      if (l.engine.add(m.keys[i], m.timestamps[i], m.values[i]) === LATE) late++;
      else accepted++;
    }
    this.metrics.processed('live', accepted, late);
  }

  private liveOf(config: EventWindowConfigEntity): Live {
    const key = liveKey(config.tenantId, config.id);
    const existing = this.live.get(key);
    if (existing && existing.config.version === config.version) return existing;
    const l: Live = {
      config,
      sink: null,
      engine: new WindowEngine(windowDefinition(config), (w, contents) => this.closed(l, w, contents)),
    };
    l.engine.advance(this.clock());
    this.live.set(key, l);
    return l;
  }

  private closed(l: Live, w: WindowResult, _contents: (n: number) => WindowContents) {
    this.metrics.evaluated('live', w.count);
    if (l.sink) l.sink.push(windowView(w));
    if (l.config.emitMode !== 'OnClose') return;
    void this.bus
      .publish(
        Subjects.EventWindowClosed,
        {
          configId: l.config.id,
          tenantId: l.config.tenantId,
          key: w.key,
          start: new Date(w.start).toISOString(),
          end: new Date(w.end).toISOString(),
          count: w.count,
          aggregates: w.aggregates as Record<string, unknown>,
        },
        { tenantId: l.config.tenantId },
      )
      .catch((error) => this.logger.warn({ msg: 'closed window not published', err: String(error) }));
  }
}

function liveKey(tenantId: string, configId: string) {
  return `${tenantId}\u0000${configId}`;
}
