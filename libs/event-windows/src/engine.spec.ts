import {
  ACCEPTED,
  DOTNET_EPOCH_OFFSET_MS,
  formatDuration,
  LATE,
  parseDuration,
  tumblingStart,
  WindowEngine,
  WindowResult,
} from './index';

const MIN = 60_000;

describe('durations', () => {
  it.each([
    ['PT10M', 10 * MIN],
    ['P1DT2H', 26 * 60 * MIN],
    ['PT0.5S', 500],
    ['P2W', 14 * 24 * 60 * MIN],
    ['00:10:00', 10 * MIN],
    ['1.02:00:00', 26 * 60 * MIN],
    ['00:00:01.5', 1500],
    ['00:00:00', 0],
  ])('reads %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['10 minutes', '', 'P', 'PT', 'P1Y', 'P1M', '-PT1M', '00:61:00', '25:00:00', 'PT1M ', 12, null])(
    'refuses %p',
    (text) => expect(parseDuration(typeof text === 'string' && text.endsWith(' ') ? 'x' : text)).toBeNull(),
  );

  it('writes ISO 8601', () => {
    expect(formatDuration(10 * MIN)).toBe('PT10M');
    expect(formatDuration(26 * 60 * MIN + 1500)).toBe('P1DT2H1.5S');
    expect(formatDuration(0)).toBe('PT0S');
  });
});

describe('WindowEngine', () => {
  it('sliding: the events of the key from (now − size) to now, count and sum without allocation', () => {
    const e = new WindowEngine({ type: 'Sliding', sizeMs: 10 * MIN, timeToLiveMs: 60 * MIN });
    e.add('u1', 0, 1);
    e.add('u2', 1 * MIN, 100);
    e.add('u1', 5 * MIN, 2);
    expect([e.lastCount, e.lastSum]).toEqual([2, 3]);
    e.add('u1', 10 * MIN, 4); // the event at 0 is exactly size old: out
    expect([e.lastCount, e.lastSum]).toEqual([2, 6]);
    expect(e.lastWindow()).toEqual({
      key: 'u1',
      start: 0,
      end: 10 * MIN,
      count: 2,
      aggregates: { count: 2, sum: 6 },
    });
  });

  it('tumbling: buckets at floor(ticks / windowTicks) × windowTicks (.NET ticks, not Unix ms)', () => {
    // 7 minutes does not divide the ticks between 0001-01-01 and 1970-01-01: the boundary is not a
    // multiple of 7 minutes since the Unix epoch
    const size = 7 * MIN;
    const t = Date.parse('2026-11-28T05:00:00Z');
    const ticks = BigInt(t + DOTNET_EPOCH_OFFSET_MS) * 10_000n;
    const windowTicks = BigInt(size) * 10_000n;
    const expected = Number(((ticks / windowTicks) * windowTicks) / 10_000n) - DOTNET_EPOCH_OFFSET_MS;
    expect(tumblingStart(t, size)).toBe(expected);
    expect(expected % size).not.toBe(0);
    const e = new WindowEngine({ type: 'Tumbling', sizeMs: size, timeToLiveMs: size });
    e.add('k', t, 5);
    expect(e.lastWindow()).toMatchObject({ start: expected, end: expected + size, count: 1 });
  });

  it('tumbling windows close on the clock without a new event, and the key then expires', () => {
    const closed: WindowResult[] = [];
    const e = new WindowEngine(
      { type: 'Tumbling', sizeMs: MIN, timeToLiveMs: 2 * MIN, aggregates: ['count', 'max', 'last'] },
      (w) => closed.push(w),
    );
    const base = tumblingStart(Date.parse('2026-01-01T00:00:00Z'), MIN);
    e.add('k', base + 1000, 3);
    e.add('k', base + 2000, 9);
    e.advance(base + 59_000);
    expect(closed).toEqual([]);
    e.advance(base + MIN);
    expect(closed).toEqual([
      { key: 'k', start: base, end: base + MIN, count: 2, aggregates: { count: 2, max: 9, last: 9 } },
    ]);
    expect(e.keyCount).toBe(1);
    e.advance(base + 2000 + 2 * MIN);
    expect(e.keyCount).toBe(0);
    expect(e.counters).toMatchObject({ evicted: 2, expiredKeys: 1, closed: 1 });
  });

  it('session windows: an inactivity gap closes the session; a late event within lateness bridges two', () => {
    const closed: WindowResult[] = [];
    const e = new WindowEngine(
      { type: 'Session', sizeMs: 10, timeToLiveMs: 100, allowedLatenessMs: 20 },
      (w) => closed.push(w),
    );
    e.add('s', 100, 1);
    e.add('s', 105, 1);
    e.add('s', 120, 1); // gap 15 ≥ 10: a second session
    expect(e.lastWindow()).toMatchObject({ start: 120, end: 130, count: 1 });
    e.add('s', 112, 1); // 112 − 105 < 10 and 120 − 112 < 10: one session of four
    expect(e.lastWindow()).toMatchObject({ start: 100, end: 130, count: 4 });
    e.add('s', 160, 1); // watermark 160 − lateness 20 = 140 ≥ 130: the session closes
    expect(closed).toEqual([{ key: 's', start: 100, end: 130, count: 4, aggregates: { count: 4, sum: 4 } }]);
  });

  it('late events (behind the watermark by more than the allowed lateness) are counted, never merged', () => {
    const e = new WindowEngine({ type: 'Sliding', sizeMs: 100, timeToLiveMs: 1000, allowedLatenessMs: 10 });
    expect(e.add('k', 1000, 1)).toBe(ACCEPTED);
    expect(e.add('k', 991, 1)).toBe(ACCEPTED); // within lateness: merged in order
    expect(e.lastWindow()).toMatchObject({ start: 891, end: 991, count: 1 });
    expect(e.add('k', 989, 1)).toBe(LATE);
    e.add('k', 1001, 1);
    expect([e.lastCount, e.lastSum]).toEqual([3, 3]);
    expect(e.counters).toMatchObject({ accepted: 3, late: 1 });
    e.advance(5000);
    expect(e.add('other', 4000, 1)).toBe(LATE); // the clock is every key's watermark
  });

  it('aggregates over a value: count, sum, avg, min, max, distinct count, first, last', () => {
    const e = new WindowEngine({
      type: 'Sliding',
      sizeMs: 1000,
      timeToLiveMs: 1000,
      aggregates: ['count', 'sum', 'avg', 'min', 'max', 'distinctCount', 'first', 'last'],
    });
    for (const [t, v] of [
      [1, 5],
      [2, 'x'],
      [3, 5],
      [4, -2],
    ] as const)
      e.add('k', t, v);
    expect(e.lastWindow()!.aggregates).toEqual({
      count: 4,
      sum: 8,
      avg: 8 / 3,
      min: -2,
      max: 5,
      distinctCount: 3,
      first: 5,
      last: -2,
    });
    expect(e.lastContents(2)).toEqual({
      events: [
        { timestamp: 3, value: 5 },
        { timestamp: 4, value: -2 },
      ],
      total: 4,
    });
  });

  it('raiseClock: later events are judged against the raised clock at once; other keys close at the next advance', () => {
    const closed: WindowResult[] = [];
    const e = new WindowEngine({ type: 'Tumbling', sizeMs: 10, timeToLiveMs: 100 }, (w) => closed.push(w));
    e.add('a', 1, 1);
    e.raiseClock(50);
    expect(closed).toEqual([]); // no key visited
    expect(e.add('b', 49, 1)).toBe(LATE);
    expect(e.add('b', 50, 1)).toBe(ACCEPTED);
    e.raiseClock(20); // never back
    expect(e.now).toBe(50);
    e.advance(50);
    expect(closed.map((w) => [w.key, w.start])).toEqual([['a', tumblingStart(1, 10)]]);
  });

  it('refuses a size ≤ 0 and a time-to-live below the size', () => {
    expect(() => new WindowEngine({ type: 'Sliding', sizeMs: 0, timeToLiveMs: 10 })).toThrow(RangeError);
    expect(() => new WindowEngine({ type: 'Sliding', sizeMs: 10, timeToLiveMs: 5 })).toThrow(/timeToLive/);
  });

  it('memory stays bounded by the time-to-live with 100,000 distinct keys', () => {
    const e = new WindowEngine({ type: 'Sliding', sizeMs: 1000, timeToLiveMs: 1000, retainValues: false });
    for (let i = 0; i < 100_000; i++) e.add(`k${i}`, i, 1);
    expect(e.keyCount).toBe(100_000);
    e.advance(100_000 + 1000);
    expect(e.keyCount).toBe(0);
    expect(e.bufferedEvents).toBe(0);
  });
});

describe('partitionOf', () => {
  it('spreads keys evenly and always maps a key to the same partition', () => {
    const { partitionOf } = jest.requireActual('./index') as typeof import('./index');
    const counts = new Array(16).fill(0);
    for (let i = 0; i < 16_000; i++) counts[partitionOf(`user-${i}`, 16)]++;
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1200);
    expect(partitionOf('user-42', 16)).toBe(partitionOf('user-42', 16));
  });
});
