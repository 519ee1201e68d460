import { iso } from './window-views';

describe('iso', () => {
  it('writes what Date#toISOString writes, across days, years 0001-9999 and before 1970', () => {
    const samples = [
      0,
      -1,
      1,
      86_399_999,
      86_400_000,
      Date.UTC(2026, 10, 28, 23, 59, 59, 999),
      Date.UTC(2026, 10, 29),
      Date.parse('0001-01-01T00:00:00.000Z'),
      Date.parse('9999-12-31T23:59:59.999Z'),
      Date.parse('1969-12-31T12:34:56.789Z'),
    ];
    let seed = 7;
    for (let i = 0; i < 5000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      // clustered (same day, as in a batch) and spread over the whole range
      samples.push(i % 2 ? Date.UTC(2026, 10, 28) + (seed % 200_000_000) : (seed / 2 ** 32) * 5e14 - 6e13);
    }
    for (let pass = 0; pass < 2; pass++)
      // the second pass is answered from the cache
      for (const ms of samples) expect(iso(Math.floor(ms))).toBe(new Date(Math.floor(ms)).toISOString());
  });

  it('throws on an invalid time, like toISOString', () => {
    expect(() => iso(NaN)).toThrow(RangeError);
  });
});
