import { EventBus, EventSubscription } from '@arbiter/platform';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { reservationChunk } from '../domain/chunk-size';
import { windowEnd, windowStart } from '../domain/windows';
import { QuotaRepository } from '../persistence/quota-repository';
import { QuotaSettings } from '../quotas.settings';
import { QUOTA_CHANGED_SUBJECT, QuotaChangedEvent } from './quota-events';
import { CONCURRENCY_RECHECK_MS, QuotaLease, TenantQuotaState } from './tenant-quota-state';
import { TenantLimits } from './tenant-limits';
import { concurrencyLimitExceeded } from './quota-errors';

export type { QuotaLease } from './tenant-quota-state';

const OPEN_LEASE: QuotaLease = { release: () => undefined };
/** A tenant's state is dropped after this long with nothing held or pending. */
const IDLE_STATE_MS = 10 * 60_000;

/**
 * Admission of rule executions against the tenant's quota, shared by every replica through the
 * database yet without a database write per execution:
 *
 * - Evaluations: a replica reserves a chunk for the current minute (and day) with one atomic
 *   statement that never passes a limit, then consumes it from memory. The chunk is about a second
 *   of this replica's traffic and shrinks to 1 near the limit. Once half of it is used the next one
 *   is reserved in the background (not near the limit), so `acquire` waits only for the first
 *   evaluation of a minute, or near the limit, or when traffic outruns the chunks; then one
 *   reservation per tenant is in flight and the others wait for it. What a replica reserved and did
 *   not use stays counted in its window.
 * - Concurrency: each replica holds a lease row (slots, expiry) per tenant; the sum of live leases
 *   never passes the limit. Slots are taken and released in memory; a lease grows when they run
 *   out, is renewed every `Quotas:SyncIntervalMs` (keeping the peak since the last renewal and
 *   handing the idle rest back), and a dead replica's lease simply expires.
 * - A tenant with no limit at all never waits: its evaluations are counted in memory and written
 *   on the sync timer, so the usage endpoint still shows them.
 *
 * Over a limit, `acquire` throws (synchronously when known locally, else by rejection) a 429
 * AppError: `QUOTA_EXCEEDED` with `Retry-After` until the window resets, or
 * `CONCURRENCY_LIMIT_EXCEEDED` with `Retry-After: 1`. Call it outside any open transaction.
 */
@Injectable()
export class QuotaGate implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly replicaId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly logger = new Logger('QuotaGate');
  private readonly tenants = new Map<string, TenantQuotaState>();
  private timer?: NodeJS.Timeout;
  private syncing?: Promise<void>;
  private subscription?: EventSubscription;

  constructor(
    @Inject(QuotaRepository) private readonly repository: QuotaRepository,
    @Inject(TenantLimits) private readonly tenantLimits: TenantLimits,
    @Inject(QuotaSettings) private readonly settings: QuotaSettings,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  /** Admits one execution of `tenantId`; `release()` the lease when it ends. */
  acquire(tenantId: string): QuotaLease | Promise<QuotaLease> {
    if (!this.settings.enabled) return OPEN_LEASE;
    const state = this.state(tenantId);
    if (!state.limits) return this.acquireSlowly(state);
    const now = Date.now();
    if (now - state.limitsLoadedAt > this.settings.limitsCacheMs) void this.reloadInBackground(state);
    const outcome = state.tryAcquire(now);
    if (typeof outcome !== 'object') return this.acquireSlowly(state);
    if (state.wantsPrefetch(now)) this.reserve(state).catch((error) => this.prefetchFailed(state, error));
    return outcome;
  }

  /** Re-reads the tenant's limits now (after a change on this replica or announced by another). */
  async refresh(tenantId: string): Promise<void> {
    const state = this.tenants.get(tenantId);
    if (state) await this.loadLimits(state, true);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.timer = setInterval(() => void this.sync(), this.settings.syncIntervalMs);
    this.timer.unref();
    try {
      this.subscription = await this.bus.subscribe(QUOTA_CHANGED_SUBJECT, (event) =>
        this.refresh((event.data as QuotaChangedEvent).tenantId).catch((error) =>
          this.logger.warn({ msg: 'quota limits not reloaded after a change', err: String(error) }),
        ),
      );
    } catch (error) {
      this.logger.warn({
        msg: 'quota changes of other replicas apply after Quotas:LimitsCacheMs',
        err: String(error),
      });
    }
  }

  /** Hands every slot back and writes pending counts, so a restart loses nothing. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.subscription?.unsubscribe().catch(() => undefined);
    await this.syncing;
    for (const state of this.tenants.values()) {
      try {
        await this.flushUnreported(state);
        if (state.hasLeaseRow) await this.repository.dropLease(state.tenantId, this.replicaId);
      } catch (error) {
        // The lease expires on its own; the unwritten counts are lost and said so.
        this.logger.warn({
          msg: 'quota state not handed back',
          tenantId: state.tenantId,
          err: String(error),
        });
      }
    }
    this.tenants.clear();
  }

  private state(tenantId: string): TenantQuotaState {
    let state = this.tenants.get(tenantId);
    if (!state) this.tenants.set(tenantId, (state = new TenantQuotaState(tenantId)));
    return state;
  }

  /** Waits for the database (limits, a reservation or more slots) until admitted or refused. */
  private async acquireSlowly(state: TenantQuotaState): Promise<QuotaLease> {
    for (;;) {
      if (!state.limits) await this.loadLimits(state);
      const outcome = state.tryAcquire(Date.now());
      if (typeof outcome === 'object') return outcome;
      if (outcome === 'slots') {
        state.waitingForSlots++;
        try {
          await (state.leaseWrite ?? this.growLease(state));
        } finally {
          state.waitingForSlots--;
        }
      } else {
        state.waitingForEvaluations++;
        try {
          await (state.reserving ?? this.reserve(state));
        } finally {
          state.waitingForEvaluations--;
        }
      }
    }
  }

  private loadLimits(state: TenantQuotaState, force = false): Promise<void> {
    if (state.loading && !force) return state.loading;
    const sequence = ++state.loadSequence; // a forced reload wins over an older read still in flight
    const loading: Promise<void> = this.tenantLimits
      .resolve(state.tenantId)
      .then((resolved) => {
        if (sequence === state.loadSequence) state.setLimits(resolved.limits, Date.now());
      })
      .finally(() => {
        if (state.loading === loading) state.loading = undefined;
      });
    state.loading = loading;
    return loading;
  }

  private async reloadInBackground(state: TenantQuotaState): Promise<void> {
    if (state.loading) return;
    await this.loadLimits(state).catch((error) =>
      this.logger.warn({ msg: 'quota limits not reloaded', tenantId: state.tenantId, err: String(error) }),
    );
  }

  private prefetchFailed(state: TenantQuotaState, error: unknown): void {
    // A refusal is remembered by the state and answered to the next caller; anything else is logged.
    if ((error as { status?: number }).status !== 429)
      this.logger.warn({
        msg: 'evaluations not reserved ahead',
        tenantId: state.tenantId,
        err: String(error),
      });
  }

  /** One atomic reservation of evaluations for the current minute and day. */
  private reserve(state: TenantQuotaState): Promise<void> {
    const run = async () => {
      const now = Date.now();
      const { maxEvaluationsPerMinute: perMinute, maxEvaluationsPerDay: perDay } = state.limits!;
      const minute = windowStart('minute', now);
      const day = windowStart('day', now);
      const wanted = reservationChunk({
        waiting: state.waitingForEvaluations,
        recentRate: state.lastRate,
        remaining: state.remaining(minute, day),
        max: this.settings.maxReservationChunk,
      });
      const reserved = await this.repository.reserveEvaluations(
        state.tenantId,
        wanted,
        { start: minute, limit: perMinute },
        { start: day, limit: perDay },
      );
      state.addReserved(reserved.granted, minute, day, reserved);
      if (reserved.granted > 0) return;
      const dayFull = perDay !== null && reserved.dayUsed >= perDay;
      throw dayFull
        ? state.markExhausted('maxEvaluationsPerDay', perDay, windowEnd('day', now), Date.now())
        : state.markExhausted('maxEvaluationsPerMinute', perMinute!, windowEnd('minute', now), Date.now());
    };
    state.reserving = run().finally(() => (state.reserving = undefined));
    return state.reserving;
  }

  /** Asks for one more slot per waiting caller; refuses when the live leases leave none. */
  private growLease(state: TenantQuotaState): Promise<void> {
    const limit = state.limits!.maxConcurrentExecutions!;
    return this.writeLease(
      state,
      Math.min(limit, state.inFlight + Math.max(1, state.waitingForSlots)),
      () => {
        if (state.hasFreeSlot(Date.now())) return;
        state.concurrencyRefusedUntil = Date.now() + CONCURRENCY_RECHECK_MS;
        throw concurrencyLimitExceeded(limit);
      },
    );
  }

  /** The only writer of this replica's lease row for a tenant (grow and renew never overlap). */
  private writeLease(
    state: TenantQuotaState,
    wanted: number,
    after: () => void = () => undefined,
  ): Promise<void> {
    const run = async () => {
      const started = Date.now();
      const slots = await this.repository.leaseSlots(state.tenantId, {
        replicaId: this.replicaId,
        wanted,
        inUse: state.inFlight,
        limit: state.limits!.maxConcurrentExecutions,
        ttlMs: this.settings.leaseTtlMs,
      });
      state.setSlots(slots, started + this.settings.leaseTtlMs);
      after();
    };
    state.leaseWrite = run().finally(() => (state.leaseWrite = undefined));
    return state.leaseWrite;
  }

  /** Renews leases (keeping the peak since the last renewal), writes unlimited usage, drops idle states. */
  private sync(): Promise<void> {
    if (this.syncing) return this.syncing;
    const run = async () => {
      const now = Date.now();
      for (const state of [...this.tenants.values()]) {
        try {
          await this.flushUnreported(state);
          if (state.limits && !state.leaseWrite && (state.hasLeaseRow || state.inFlight > 0)) {
            const keep = Math.max(state.inFlight, state.peak);
            state.peak = state.inFlight;
            await this.writeLease(state, keep);
          }
        } catch (error) {
          this.logger.warn({ msg: 'quota sync failed', tenantId: state.tenantId, err: String(error) });
        }
        if (state.isIdle(now, IDLE_STATE_MS)) this.tenants.delete(state.tenantId);
      }
    };
    this.syncing = run().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private async flushUnreported(state: TenantQuotaState): Promise<void> {
    for (const [minute, count] of [...state.unreported]) {
      state.unreported.delete(minute);
      try {
        await this.repository.reserveEvaluations(
          state.tenantId,
          count,
          { start: minute, limit: null },
          { start: windowStart('day', minute), limit: null },
        );
      } catch (error) {
        state.unreported.set(minute, (state.unreported.get(minute) ?? 0) + count);
        throw error;
      }
    }
  }
}
