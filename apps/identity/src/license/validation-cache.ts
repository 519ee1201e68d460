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

/**
 * Validate's reads of license rows, per (key, fingerprint), in memory: the online check is a hot path, and
 * a read per call would make PostgreSQL its limit. Kept correct across replicas: a revocation, a feature
 * update and an activation clear this replica's entries of the key at once and are published on
 * `arbiter.license.changed`, which every replica (this one included) applies; while the bus is NATS and
 * connected an entry lives 10 s at most (the bound should a message be lost), otherwise 1 s (in-process
 * bus: other replicas cannot hear of a change). Expiry needs no event: validate compares `expiresAt` with
 * the clock on every call. A reconnect to NATS clears everything (messages may have been missed). Unknown
 * keys are cached too, so a flood of made-up keys costs one read per key and TTL at most.
 */
@Injectable()
export class ValidationCache implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('LicenseValidationCache');
  private readonly entries = new Map<string, { at: number; ttl: number; value: CachedValidation }>();
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
    if (now - entry.at >= entry.ttl) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /**
   * The cached read of `key`, or one read by `read` (shared by every concurrent miss of the key: a hundred
   * requests arriving as an entry expires make one database read, not a hundred). A read that started
   * before a change (`forget`, `clear`) is answered but not stored.
   */
  load(
    key: string,
    licenseKey: string,
    read: () => Promise<ValidationRow | undefined>,
  ): Promise<CachedValidation> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const promise = read()
      .then((row) =>
        generation === this.generation ? this.set(key, licenseKey, row) : this.wrap(licenseKey, row),
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

  set(key: string, licenseKey: string, row: ValidationRow | undefined, now = Date.now()): CachedValidation {
    const value = this.wrap(licenseKey, row);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    const status = this.bus.status();
    const ttl = status.kind === 'nats' && status.connected ? TTL_WITH_BUS_MS : TTL_WITHOUT_BUS_MS;
    this.entries.set(key, { at: now, ttl, value });
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
