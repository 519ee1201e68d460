import { PREFETCH_MIN_REMAINING, reservationChunk, shouldPrefetch } from './chunk-size';
import { secondsUntil, windowEnd, windowStart } from './windows';

describe('reservation chunk size', () => {
  const max = 2000;

  it('reserves about one second of traffic, at least the callers waiting', () => {
    expect(reservationChunk({ waiting: 1, recentRate: 0, remaining: null, max })).toBe(1);
    expect(reservationChunk({ waiting: 1, recentRate: 300, remaining: null, max })).toBe(300);
    expect(reservationChunk({ waiting: 40, recentRate: 10, remaining: null, max })).toBe(40);
  });

  it('takes at most an eighth of what is left, shrinking to 1 near the limit', () => {
    expect(reservationChunk({ waiting: 1, recentRate: 500, remaining: 800, max })).toBe(100);
    expect(reservationChunk({ waiting: 1, recentRate: 500, remaining: 15, max })).toBe(1);
    expect(reservationChunk({ waiting: 1, recentRate: 500, remaining: 0, max })).toBe(1);
  });

  it('never exceeds the configured maximum', () => {
    expect(reservationChunk({ waiting: 1, recentRate: 1e6, remaining: null, max })).toBe(max);
    expect(reservationChunk({ waiting: 5000, recentRate: 0, remaining: null, max })).toBe(max);
  });
});

describe('UTC windows', () => {
  const now = Date.parse('2026-11-20T10:15:42.500Z');

  it('start on the minute and the day', () => {
    expect(new Date(windowStart('minute', now)).toISOString()).toBe('2026-11-20T10:15:00.000Z');
    expect(new Date(windowEnd('minute', now)).toISOString()).toBe('2026-11-20T10:16:00.000Z');
    expect(new Date(windowStart('day', now)).toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(new Date(windowEnd('day', now)).toISOString()).toBe('2026-11-21T00:00:00.000Z');
  });

  it('gives Retry-After in whole seconds, at least 1', () => {
    expect(secondsUntil(windowEnd('minute', now), now)).toBe(18);
    expect(secondsUntil(now, now)).toBe(1);
  });
});

describe('reserving ahead', () => {
  it('starts once half of the last chunk is used, far from the limit only', () => {
    expect(shouldPrefetch({ budget: 60, lastGranted: 100, remaining: 5000 })).toBe(false);
    expect(shouldPrefetch({ budget: 50, lastGranted: 100, remaining: 5000 })).toBe(true);
    expect(shouldPrefetch({ budget: 0, lastGranted: 1, remaining: null })).toBe(true);
    expect(shouldPrefetch({ budget: 0, lastGranted: 1, remaining: PREFETCH_MIN_REMAINING - 1 })).toBe(false);
  });
});
