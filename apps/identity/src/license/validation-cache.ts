import { Subjects } from '@arbiter/contracts';
import { EventBus, EventSubscription } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';

/** What validate reads of a license for a machine (`expires` in epoch ms, parsed once). */
export interface ValidationRow {
  tier: string;
  allowed_features: string[];
  expires_at: Date;
  is_revoked: boolean;
  activated: boolean;
}

export interface CachedValidation {
  /** The key's normal form (the cache is keyed by the key as sent: a hit skips the check-code hash). */
  licenseKey: string;
  row: ValidationRow | undefined;
  expiresMs: number;
  expiresAt: string | null;
}

/** How long a read is reused when changes reach this replica over NATS, and when they may not. */
const TTL_WITH_BUS_MS = 10_000;
const TTL_WITHOUT_BUS_MS = 1000;
const MAX_ENTRIES = 10_000;
/** Share of its time to live after which a hit also starts a read of the entry in the background. */
const REFRESH_AFTER = 0.75;

/** A read of the license row of one cache key. */
type ValidationRead = () => Promise<ValidationRow | undefined>;

/**
 * Validate's reads of license rows, per (key, fingerprint), in memory: the online check is a hot path, and
 * a read per call would make PostgreSQL its limit. Kept correct across replicas: a revocation, a feature
 * update and an activation clear this replica's entries of the key at once and are published on
 * `arbiter.license.changed`, which every replica (this one included) applies; while the bus is NATS and
 * connected an entry lives 10 s at most (the bound should a message be lost), otherwise 1 s (in-process
 * bus: other replicas cannot hear of a change). Expiry needs no event: validate compares `expiresAt` with
 * the clock on every call. A reconnect to NATS clears everything (messages may have been missed). Unknown
 * keys are cached too, so a flood of made-up keys costs one read per key and TTL at most.
 *
 * Refreshed ahead: a hit on an entry past `REFRESH_AFTER` of its time to live is answered from it and starts
 * one read of it in the background, so an entry in use is replaced before it expires and no request waits
 * for the database as it expires (on a busy key, those that came in during the read did: a database round
 * trip for every one of them, once per TTL, per key — validate's latency tail). The bound holds: the entry
 * is still within its TTL when used, and a refreshed entry's age counts from the start of its read.
 */
@Injectable()
export class ValidationCache implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('LicenseValidationCache');
  private readonly entries = new Map<
    string,
    { at: number; ttl: number; value: CachedValidation; read: ValidationRead | undefined }
  >();
  /** Reads under way, by cache key: concurrent misses of one key share one read. */
  private readonly loading = new Map<string, Promise<CachedValidation>>();
  /** Bumped by every change: a read that started before a change is not stored. */
  private generation = 0;
  private subscription: EventSubscription | undefined;
  private stopReconnect: (() => void) | undefined;

  constructor(@Inject(EventBus) private readonly bus: EventBus) {}

  async onModuleInit(): Promise<void> {
    this.subscription = await this.bus.subscribe(Subjects.LicenseChanged, (event) =>
      this.forget(event.data.licenseKey),
    );
    this.stopReconnect = this.bus.onReconnected(() => this.clear());
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopReconnect?.();
    await this.subscription?.unsubscribe().catch(() => undefined);
  }

  /** The cache key: the license key as sent (any spelling of a well-formed key) and the fingerprint. */
  static keyOf(licenseKeyAsSent: string, fingerprint: string | null): string {
    return `${licenseKeyAsSent}\u0000${fingerprint ?? ''}`;
  }

  get(key: string, now = Date.now()): CachedValidation | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const age = now - entry.at;
    if (age >= entry.ttl) {
      this.entries.delete(key);
      return undefined;
    }
    if (age >= entry.ttl * REFRESH_AFTER && entry.read && !this.loading.has(key)) {
      const read = entry.read;
      entry.read = undefined; // one refresh per entry: the next one belongs to the entry it stores
      this.load(key, entry.value.licenseKey, read).catch((error: unknown) =>
        this.logger.warn({ msg: 'could not refresh a license read', error: String(error) }),
      );
    }
    return entry.value;
  }

  /**
   * The cached read of `key`, or one read by `read` (shared by every concurrent miss of the key: a hundred
   * requests arriving as an entry expires make one database read, not a hundred). A read that started
   * before a change (`forget`, `clear`) is answered but not stored.
   */
  load(key: string, licenseKey: string, read: ValidationRead): Promise<CachedValidation> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const started = Date.now();
    const promise = read()
      .then((row) =>
        generation === this.generation
          ? this.set(key, licenseKey, row, started, read)
          : this.wrap(licenseKey, row),
      )
      .finally(() => this.loading.delete(key));
    this.loading.set(key, promise);
    return promise;
  }

  private wrap(licenseKey: string, row: ValidationRow | undefined): CachedValidation {
    const expires = row ? new Date(row.expires_at) : undefined;
    return {
      licenseKey,
      row,
      expiresMs: expires ? expires.getTime() : 0,
      expiresAt: expires ? expires.toISOString() : null,
    };
  }

  /** Stores a read made at `now` (its age counts from then); `read` is how to refresh it. */
  set(
    key: string,
    licenseKey: string,
    row: ValidationRow | undefined,
    now = Date.now(),
    read?: ValidationRead,
  ): CachedValidation {
    const value = this.wrap(licenseKey, row);
    this.entries.delete(key); // a refreshed entry moves to the end (the oldest go first at MAX_ENTRIES)
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    const status = this.bus.status();
    const ttl = status.kind === 'nats' && status.connected ? TTL_WITH_BUS_MS : TTL_WITHOUT_BUS_MS;
    this.entries.set(key, { at: now, ttl, value, read });
    return value;
  }

  /** Drops this replica's entries of a key. */
  forget(licenseKey: string): void {
    this.generation++;
    this.loading.clear();
    for (const [key, entry] of this.entries)
      if (entry.value.licenseKey === licenseKey) this.entries.delete(key);
  }

  /** Drops the key here at once and tells every replica (the bus failing leaves the TTL as the bound). */
  async changed(licenseKey: string, change: 'revoked' | 'features' | 'activated'): Promise<void> {
    this.forget(licenseKey);
    await this.bus
      .publish(Subjects.LicenseChanged, { licenseKey, change, occurredAt: new Date().toISOString() })
      .catch((error) =>
        this.logger.error({ msg: 'could not publish a license change', change, error: String(error) }),
      );
  }

  clear(): void {
    this.generation++;
    this.loading.clear();
    this.entries.clear();
  }
}
