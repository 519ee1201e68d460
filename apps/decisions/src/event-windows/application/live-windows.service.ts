import { Subjects } from '@arbiter/contracts';
import { LATE, partitionOf, WindowContents, WindowEngine, WindowResult } from '@arbiter/event-windows';
import { AppError, BusRequestError, EventBus, EventSubscription, RequestContext } from '@arbiter/platform';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventWindowErrors } from '../errors';
import { EventWindowsSettings } from '../event-windows.settings';
import type { EventWindowConfigEntity } from '../persistence/entities';
import { windowDefinition } from './config-model';
import { EventBatch, readBatch } from './event-batch';
import { EventWindowConfigService } from './event-window-config.service';
import { EventWindowMetrics } from './metrics';
import { iso, windowFacts, windowView } from './window-views';

/** Inbound events of clients: `arbiter.events.<tenant>.<config>`, body `{ Events: [...] }`, an array or one event. */
export const INBOUND_SUBJECTS = 'arbiter.events.*.*';
/** Events routed to the replica holding their key's partition: `arbiter.cep.partition.<p>` (kept in the stream). */
export const partitionSubject = (p: number) => `arbiter.cep.partition.${p}`;
/** Key-window reads answered by the replica holding partition `p` (NATS request/reply). */
export const partitionReadSubject = (p: number) => `rpc.cep.partition.${p}.window`;

/** Events per partition message: well under NATS's 1 MiB message limit for ordinary values. */
const PART_SIZE = 1000;

export interface PartitionMessage {
  tenantId: string;
  configId: string;
  /** Version of the configuration the events were sent for: a replay skips other versions' events. */
  version: number;
  /** The live clock when the events were sent: the owner judges lateness against it, live and on replay. */
  at: number;
  /** The replica that applied these events already (HTTP ingest of its own keys), else empty. */
  origin: string;
  keys: string[];
  timestamps: number[];
  values: unknown[];
}

interface KeyWindowRead {
  configId: string;
  key: string;
}

interface Live {
  config: EventWindowConfigEntity;
  /**
   * One engine per owned partition: a partition's events arrive in their own stream order with their own
   * clock, so a replay of one partition rebuilds exactly its windows whatever the others do.
   */
  engines: Map<number, WindowEngine>;
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
 * owning `p` reads that subject through a JetStream consumer and applies the events, so all events of a key
 * meet in one engine. `POST /{id}/events` applies owned keys at once (their windows are in the answer) and
 * publishes every part (the owned ones marked as applied, so the stream holds every event).
 *
 * Restart: each partition's consumer first replays the stream from `EventWindows:ReplayMs` ago, in order,
 * each message at its own clock (`at`), then goes on live; reads of a partition wait for its replay.
 * Reads of a key held by another replica go to it by request/reply on `rpc.cep.partition.<p>.window`.
 * The clock (`EventWindows:ClockIntervalMs`) closes windows and expires keys; closed windows of `OnClose`
 * configurations are published on `arbiter.event-window.closed`. A configuration change drops its windows on
 * every replica (`arbiter.event-window.changed`).
 */
@Injectable()
export class LiveWindowsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventWindows');
  private readonly live = new Map<string, Live>();
  private readonly owned: Set<number>;
  private readonly subscriptions: EventSubscription[] = [];
  /** This process: messages it applied itself (`origin`) are not applied again when they come back. */
  readonly replicaId = randomUUID();
  /** Owned partitions whose replay is over (ticked and read from then on). */
  private readonly replayed = new Set<number>();
  private readonly replayWaiters = new Map<number, (() => void)[]>();
  /** Configurations found missing during a replay (events of deleted configurations are skipped). */
  private readonly missing = new Set<string>();
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
    const replayFrom = Date.now() - this.settings.replayMs;
    for (const p of this.owned) {
      this.subscriptions.push(
        await this.bus.subscribe(
          partitionSubject(p),
          (e) => this.applyRouted(p, e.data as PartitionMessage),
          {
            replayFrom,
            onReplayed: () => this.replayDone(p),
          },
        ),
        await this.bus.respond<KeyWindowRead>(partitionReadSubject(p), (e) =>
          this.localWindow(e.data.configId, e.data.key),
        ),
      );
    }
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

  /** Advances every live engine of a replayed partition to `now`. */
  tick(now: number) {
    for (const l of this.live.values())
      for (const [p, engine] of l.engines) if (this.replayed.has(p)) engine.advance(now);
  }

  partitionOf(key: string): number {
    return partitionOf(key, this.settings.partitions);
  }

  ownsKey(key: string): boolean {
    return this.owned.has(this.partitionOf(key));
  }

  /** Whether every owned partition has been rebuilt from the stream. */
  get rebuilt(): boolean {
    return this.replayed.size === this.owned.size;
  }

  /** `POST /{id}/events`. */
  async ingest(id: string, events: unknown[]) {
    const tenantId = RequestContext.tenantId();
    const config = await this.configs.load(id, tenantId);
    const batch = readBatch(events, config, this.settings.maxBatchEvents);
    const l = this.liveOf(config);
    const at = this.clock();
    const results: Record<string, unknown>[] = new Array(batch.keys.length);
    const parts = new Map<number, PartitionMessage>();
    const closed: Record<string, unknown>[] = [];
    l.sink = closed;
    let accepted = 0;
    let late = 0;
    let forwarded = 0;
    try {
      for (let i = 0; i < batch.keys.length; i++) {
        const key = batch.keys[i];
        const t = batch.timestamps[i];
        const result: Record<string, unknown> = { Index: i, Key: key, Timestamp: iso(t) };
        results[i] = result;
        const p = this.partitionOf(key);
        const own = this.owned.has(p);
        let m = parts.get(p);
        if (!m) {
          m = { ...messageOf(config, at, own ? this.replicaId : ''), keys: [], timestamps: [], values: [] };
          parts.set(p, m);
        }
        m.keys.push(key);
        m.timestamps.push(t);
        m.values.push(batch.values[i]);
        if (!own) {
          forwarded++;
          result.Status = 'Forwarded';
          continue;
        }
        const engine = this.engineOf(l, p);
        engine.raiseClock(at);
        if (engine.add(key, t, batch.values[i]) === LATE) {
          late++;
          result.Status = 'Late';
          continue;
        }
        accepted++;
        result.Status = 'Accepted';
        if (config.emitMode === 'OnUpdate') {
          const w = engine.lastWindow()!;
          result.Window = windowView(w);
          this.metrics.evaluated('live', w.count);
        }
      }
    } finally {
      l.sink = null;
    }
    this.metrics.processed('live', accepted, late);
    for (const [p, m] of parts) await this.publishPart(p, m);
    let evicted = 0;
    for (const engine of l.engines.values()) evicted += engine.counters.evicted;
    return {
      Results: results,
      Closed: closed,
      Processed: batch.keys.length,
      Accepted: accepted,
      Late: late,
      Evicted: evicted,
      Forwarded: forwarded,
    };
  }

  /**
   * `GET /{id}/keys/{key}/window`: the key's current window and its rule facts, from the replica holding
   * the key's partition (this one, or the owner over NATS request/reply; 503 when none answers).
   */
  async keyWindow(id: string, key: string) {
    const config = await this.configs.load(id);
    const partition = this.partitionOf(key);
    if (this.owned.has(partition)) return this.localWindow(config.id, key, config);
    let answer: Record<string, unknown>;
    try {
      answer = await this.bus.request<Record<string, unknown>>(
        partitionReadSubject(partition),
        { configId: config.id, key } satisfies KeyWindowRead,
        { timeoutMs: this.settings.readTimeoutMs },
      );
    } catch (error) {
      if (error instanceof BusRequestError && error.reason === 'REMOTE_ERROR' && error.remote?.status)
        throw new AppError(error.remote.status, error.remote.code ?? 'REMOTE_ERROR', error.message);
      throw new AppError(
        503,
        EventWindowErrors.PartitionUnavailable,
        `The replica holding partition ${partition} did not answer: ${(error as Error).message}`,
      );
    }
    return { ...answer, Owned: false };
  }

  /** A key's window on this replica, which holds its partition (once the partition is rebuilt). */
  private async localWindow(id: string, key: string, loaded?: EventWindowConfigEntity) {
    const config = loaded ?? (await this.configs.load(id));
    const partition = this.partitionOf(key);
    if (!this.owned.has(partition))
      throw new AppError(
        503,
        EventWindowErrors.PartitionUnavailable,
        `This replica does not hold partition ${partition} (EventWindows:OwnedPartitions)`,
      );
    await this.whenReplayed(partition);
    const l = this.live.get(liveKey(config.tenantId, config.id));
    const engine = l?.config.version === config.version ? l.engines.get(partition) : undefined;
    if (engine) engine.advance(this.clock());
    const current = engine?.current(key, this.settings.maxContents) ?? null;
    if (current) this.metrics.evaluated('live', current.window.count);
    return {
      ConfigId: config.id,
      Key: key,
      Partition: partition,
      Owned: true,
      Window: current ? windowView(current.window, current.contents) : null,
      Facts: windowFacts(key, current?.window ?? null, config.aggregates),
    };
  }

  private whenReplayed(p: number): Promise<void> {
    if (this.replayed.has(p)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new AppError(
              503,
              EventWindowErrors.PartitionUnavailable,
              `Partition ${p} is still being rebuilt from the event stream; try again shortly`,
            ),
          ),
        this.settings.readTimeoutMs,
      );
      const waiters = this.replayWaiters.get(p) ?? [];
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.replayWaiters.set(p, waiters);
    });
  }

  private replayDone(p: number) {
    this.replayed.add(p);
    for (const wake of this.replayWaiters.get(p) ?? []) wake();
    this.replayWaiters.delete(p);
    if (this.rebuilt) {
      this.missing.clear();
      this.logger.log({ msg: 'live windows rebuilt from the stream', partitions: this.owned.size });
    }
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
    const at = this.clock();
    const parts = new Map<number, PartitionMessage>();
    for (let i = 0; i < batch.keys.length; i++) {
      const p = this.partitionOf(batch.keys[i]);
      let m = parts.get(p);
      if (!m) parts.set(p, (m = { ...messageOf(config, at, ''), keys: [], timestamps: [], values: [] }));
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
          ...m,
          keys: m.keys.slice(i, end),
          timestamps: m.timestamps.slice(i, end),
          values: m.values.slice(i, end),
        },
        { tenantId: m.tenantId },
      );
    }
  }

  /** Events of an owned partition, from the stream: live, or replayed at start. */
  private async applyRouted(p: number, m: PartitionMessage) {
    if (!m || !Array.isArray(m.keys) || m.origin === this.replicaId) return;
    const replaying = !this.replayed.has(p);
    const key = liveKey(m.tenantId, m.configId);
    if (replaying && this.missing.has(`${key}\u0000${m.version}`)) return;
    let l = this.live.get(key);
    if (!l || (typeof m.version === 'number' && m.version > l.config.version)) {
      try {
        l = this.liveOf(await this.configs.load(m.configId, m.tenantId));
      } catch {
        if (replaying) this.missing.add(`${key}\u0000${m.version}`);
        return; // deleted meanwhile
      }
    }
    // events sent for another version of the configuration belong to windows dropped by the change
    if (typeof m.version === 'number' && m.version !== l.config.version) return;
    const engine = this.engineOf(l, p);
    if (typeof m.at === 'number') engine.raiseClock(m.at);
    let accepted = 0;
    let late = 0;
    for (let i = 0; i < m.keys.length; i++) {
      if (this.partitionOf(m.keys[i]) !== p) continue;
      if (engine.add(m.keys[i], m.timestamps[i], m.values[i]) === LATE) late++;
      else accepted++;
    }
    this.metrics.processed(replaying ? 'replay' : 'live', accepted, late);
  }

  private liveOf(config: EventWindowConfigEntity): Live {
    const key = liveKey(config.tenantId, config.id);
    const existing = this.live.get(key);
    if (existing && existing.config.version === config.version) return existing;
    const l: Live = { config, sink: null, engines: new Map() };
    this.live.set(key, l);
    return l;
  }

  private engineOf(l: Live, p: number): WindowEngine {
    let engine = l.engines.get(p);
    if (!engine) {
      engine = new WindowEngine(windowDefinition(l.config), (w, contents) => this.closed(l, w, contents));
      l.engines.set(p, engine);
    }
    return engine;
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

function messageOf(config: EventWindowConfigEntity, at: number, origin: string) {
  return { tenantId: config.tenantId, configId: config.id, version: config.version, at, origin };
}

function liveKey(tenantId: string, configId: string) {
  return `${tenantId}\u0000${configId}`;
}
