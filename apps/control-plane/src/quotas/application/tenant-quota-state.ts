import { AppError } from '@arbiter/platform';
import { shouldPrefetch } from '../domain/chunk-size';
import type { LimitName, QuotaLimits } from '../domain/tiers';
import { windowStart } from '../domain/windows';
import { concurrencyLimitExceeded, quotaExceeded } from './quota-errors';

/** What the caller of `QuotaGate.acquire` holds while the execution runs. */
export interface QuotaLease {
  /** Frees the concurrency slot; idempotent. */
  release(): void;
}

/** How long a replica answers 429 from memory before asking the database again. */
export const EVALUATIONS_RECHECK_MS = 1_000;
export const CONCURRENCY_RECHECK_MS = 250;

interface Exhausted {
  /** Answer from memory until then. */
  until: number;
  resetsAt: number;
  limit: LimitName;
  value: number;
}

/**
 * One tenant's quota bookkeeping on this replica, all synchronous: the limits last read, the
 * evaluations reserved from the database for the current minute and not yet consumed, the
 * concurrency slots this replica's lease holds and how many are in use, and the refusals it can
 * repeat without asking the database. The gate does the database work around it.
 */
export class TenantQuotaState {
  limits?: QuotaLimits;
  limitsLoadedAt = 0;
  loadSequence = 0;
  lastActiveAt = Date.now();

  /** Evaluations reserved for the minute window starting at `budgetMinute`, not yet consumed. */
  budget = 0;
  budgetMinute = -1;
  lastGranted = 0;
  /** Counts in the windows as of the last reservation (for the chunk size). */
  seen = { minute: -1, minuteUsed: 0, day: -1, dayUsed: 0 };
  exhausted?: Exhausted;
  waitingForEvaluations = 0;
  /** Unlimited evaluations: consumed and not yet written, per minute window start. */
  readonly unreported = new Map<number, number>();

  /** Slots held in the database lease, valid until `slotsValidUntil` (local clock). */
  slots = 0;
  slotsValidUntil = 0;
  inFlight = 0;
  /** Highest `inFlight` since the last renewal: the slots kept at renewal, the rest handed back. */
  peak = 0;
  hasLeaseRow = false;
  concurrencyRefusedUntil = 0;
  waitingForSlots = 0;

  private rateSecond = 0;
  private rateCount = 0;
  /** Evaluations consumed during the last whole second. */
  lastRate = 0;

  // Single-flight database work of this tenant.
  loading?: Promise<void>;
  reserving?: Promise<void>;
  leaseWrite?: Promise<void>;

  constructor(readonly tenantId: string) {}

  /**
   * Replaces the limits. When they changed, reserved evaluations and remembered refusals are
   * forgotten and the slots held are cut to the new limit (the lease row follows at renewal).
   */
  setLimits(limits: QuotaLimits, now: number): void {
    const changed = JSON.stringify(limits) !== JSON.stringify(this.limits);
    this.limits = limits;
    this.limitsLoadedAt = now;
    if (!changed) return;
    if (limits.maxConcurrentExecutions !== null)
      this.slots = Math.min(this.slots, limits.maxConcurrentExecutions);
    this.budget = 0;
    this.exhausted = undefined;
    this.concurrencyRefusedUntil = 0;
  }

  get evaluationsLimited(): boolean {
    return this.limits?.maxEvaluationsPerMinute != null || this.limits?.maxEvaluationsPerDay != null;
  }

  /**
   * Takes a slot and an evaluation from what this replica holds: a lease; or what the database
   * must be asked for first (`'slots'`, `'evaluations'`); or a 429 thrown when known locally.
   */
  tryAcquire(now: number): QuotaLease | 'slots' | 'evaluations' {
    const limits = this.limits!;
    const maxConcurrent = limits.maxConcurrentExecutions;
    if (maxConcurrent !== null && !this.hasFreeSlot(now)) {
      if (this.inFlight >= maxConcurrent || now < this.concurrencyRefusedUntil)
        throw concurrencyLimitExceeded(maxConcurrent);
      return 'slots';
    }
    if (this.evaluationsLimited) {
      this.rollWindow(now);
      if (this.budget === 0) {
        if (this.exhausted && now < this.exhausted.until) throw this.exhaustedError(now);
        return 'evaluations';
      }
      this.budget--;
    } else {
      const minute = windowStart('minute', now);
      this.unreported.set(minute, (this.unreported.get(minute) ?? 0) + 1);
    }
    this.countRate(now);
    return this.take(now);
  }

  /** Whether to reserve the next chunk now, in the background (see `shouldPrefetch`). */
  wantsPrefetch(now: number): boolean {
    if (this.budget > this.lastGranted / 2 || this.reserving || this.exhausted || !this.evaluationsLimited)
      return false;
    const remaining = this.remaining(windowStart('minute', now), windowStart('day', now));
    return shouldPrefetch({ budget: this.budget, lastGranted: this.lastGranted, remaining });
  }

  hasFreeSlot(now: number): boolean {
    return this.inFlight < this.slots && now < this.slotsValidUntil;
  }

  /** Records a lease write: `slots` granted, valid for the TTL from when the write started. */
  setSlots(slots: number, validUntil: number): void {
    this.slots = slots;
    this.slotsValidUntil = validUntil;
    this.hasLeaseRow = slots > 0 || this.inFlight > 0;
  }

  /** Records a reservation for the minute window starting at `minute`. */
  addReserved(
    granted: number,
    minute: number,
    day: number,
    counts: { minuteUsed: number; dayUsed: number },
  ): void {
    if (this.budgetMinute !== minute) {
      this.budgetMinute = minute;
      this.budget = 0;
    }
    this.budget += granted;
    this.lastGranted = granted;
    this.seen = { minute, minuteUsed: counts.minuteUsed, day, dayUsed: counts.dayUsed };
  }

  /** Evaluations left in the tightest limited window as last seen (null: none limited). */
  remaining(minute: number, day: number): number | null {
    const { maxEvaluationsPerMinute: perMinute, maxEvaluationsPerDay: perDay } = this.limits!;
    const left: number[] = [];
    if (perMinute !== null) left.push(perMinute - (this.seen.minute === minute ? this.seen.minuteUsed : 0));
    if (perDay !== null) left.push(perDay - (this.seen.day === day ? this.seen.dayUsed : 0));
    return left.length ? Math.max(0, Math.min(...left)) : null;
  }

  markExhausted(limit: LimitName, value: number, resetsAt: number, now: number): AppError {
    this.exhausted = { until: Math.min(resetsAt, now + EVALUATIONS_RECHECK_MS), resetsAt, limit, value };
    return this.exhaustedError(now);
  }

  /** Nothing held, nothing pending, unused for `idleMs`: the state can be dropped. */
  isIdle(now: number, idleMs: number): boolean {
    return (
      this.inFlight === 0 &&
      !this.hasLeaseRow &&
      this.unreported.size === 0 &&
      !this.loading &&
      !this.reserving &&
      !this.leaseWrite &&
      now - this.lastActiveAt > idleMs
    );
  }

  private exhaustedError(now: number): AppError {
    const e = this.exhausted!;
    return quotaExceeded(e.limit, e.value, e.resetsAt, now);
  }

  /** A new minute: what was reserved for the old one is left counted there. */
  private rollWindow(now: number): void {
    const minute = windowStart('minute', now);
    if (this.budgetMinute !== minute) {
      this.budgetMinute = minute;
      this.budget = 0;
    }
    if (this.exhausted && now >= this.exhausted.resetsAt) this.exhausted = undefined;
  }

  private countRate(now: number): void {
    const second = Math.floor(now / 1000);
    if (second !== this.rateSecond) {
      this.lastRate = second === this.rateSecond + 1 ? this.rateCount : 0;
      this.rateSecond = second;
      this.rateCount = 0;
    }
    this.rateCount++;
  }

  private take(now: number): QuotaLease {
    this.inFlight++;
    this.peak = Math.max(this.peak, this.inFlight);
    this.lastActiveAt = now;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.inFlight--;
      },
    };
  }
}
