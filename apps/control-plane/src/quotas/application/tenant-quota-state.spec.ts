import { AppError } from '@arbiter/platform';
import type { QuotaLimits } from '../domain/tiers';
import { QuotaLease, TenantQuotaState } from './tenant-quota-state';

const T0 = Date.parse('2026-11-20T10:15:10.000Z');
const MINUTE = Date.parse('2026-11-20T10:15:00.000Z');
const DAY = Date.parse('2026-11-20T00:00:00.000Z');
const limited: QuotaLimits = {
  maxConcurrentExecutions: 2,
  maxEvaluationsPerMinute: 10,
  maxEvaluationsPerDay: 100,
};

function stateWith(limits = limited) {
  const state = new TenantQuotaState('acme');
  state.setLimits(limits, T0);
  return state;
}

describe('TenantQuotaState (one tenant on one replica)', () => {
  it('asks for slots, then evaluations, then admits from what it holds', () => {
    const state = stateWith();
    expect(state.tryAcquire(T0)).toBe('slots');
    state.setSlots(2, T0 + 15_000);
    expect(state.tryAcquire(T0)).toBe('evaluations');
    state.addReserved(1, MINUTE, DAY, { minuteUsed: 1, dayUsed: 1 });
    const lease = state.tryAcquire(T0) as QuotaLease;
    expect(typeof lease.release).toBe('function');
    expect(state.inFlight).toBe(1);
    expect(state.tryAcquire(T0)).toBe('evaluations'); // the chunk of 1 is used up
    lease.release();
    lease.release();
    expect(state.inFlight).toBe(0);
  });

  it('refuses from memory once every slot is in use, and when its lease has expired asks again', () => {
    const state = stateWith({ ...limited, maxEvaluationsPerMinute: null, maxEvaluationsPerDay: null });
    state.setSlots(2, T0 + 1000);
    state.tryAcquire(T0);
    state.tryAcquire(T0);
    expect(() => state.tryAcquire(T0)).toThrow(
      expect.objectContaining({ code: 'CONCURRENCY_LIMIT_EXCEEDED' }),
    );
    const fresh = stateWith({ ...limited, maxEvaluationsPerMinute: null, maxEvaluationsPerDay: null });
    fresh.setSlots(2, T0 + 1000);
    expect(fresh.tryAcquire(T0 + 1000)).toBe('slots');
  });

  it('forgets the reserved evaluations when the minute changes', () => {
    const state = stateWith();
    state.setSlots(2, T0 + 120_000);
    state.addReserved(5, MINUTE, DAY, { minuteUsed: 5, dayUsed: 5 });
    expect(typeof state.tryAcquire(T0)).toBe('object');
    expect(state.tryAcquire(MINUTE + 60_000)).toBe('evaluations');
  });

  it('repeats a QUOTA_EXCEEDED from memory for a second, with Retry-After until the reset', () => {
    const state = stateWith();
    state.setSlots(2, T0 + 120_000);
    const resetsAt = T0 + 50_000;
    const error = state.markExhausted('maxEvaluationsPerMinute', 10, resetsAt, T0);
    expect(error).toMatchObject({ status: 429, code: 'QUOTA_EXCEEDED', headers: { 'retry-after': '50' } });
    let thrown: AppError | undefined;
    try {
      state.tryAcquire(T0 + 500);
    } catch (e) {
      thrown = e as AppError;
    }
    expect(thrown?.headers).toEqual({ 'retry-after': '50' });
    expect(state.tryAcquire(T0 + 1000)).toBe('evaluations'); // then the database is asked again
  });

  it('counts an unlimited tenant in memory per minute window', () => {
    const state = stateWith({
      maxConcurrentExecutions: null,
      maxEvaluationsPerMinute: null,
      maxEvaluationsPerDay: null,
    });
    for (let i = 0; i < 3; i++) (state.tryAcquire(T0) as QuotaLease).release();
    (state.tryAcquire(T0 + 60_000) as QuotaLease).release();
    expect([...state.unreported.values()]).toEqual([3, 1]);
  });

  it('cuts the slots it holds and forgets refusals when the limits change', () => {
    const state = stateWith();
    state.setSlots(2, T0 + 15_000);
    state.markExhausted('maxEvaluationsPerMinute', 10, T0 + 50_000, T0);
    state.setLimits({ ...limited, maxConcurrentExecutions: 0 }, T0);
    expect(state.slots).toBe(0);
    expect(state.exhausted).toBeUndefined();
    expect(() => state.tryAcquire(T0)).toThrow(
      expect.objectContaining({ code: 'CONCURRENCY_LIMIT_EXCEEDED' }),
    );
  });
});
