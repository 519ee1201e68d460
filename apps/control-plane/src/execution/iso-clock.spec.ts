import { isoNow } from './iso-clock';

describe('isoNow', () => {
  it('formats the given millisecond as ISO-8601', () => {
    expect(isoNow(Date.UTC(2026, 10, 24, 11, 36, 24, 257))).toBe('2026-11-24T11:36:24.257Z');
  });

  it('follows the clock: a new millisecond gives a new stamp, the same one the same stamp', () => {
    const t = Date.UTC(2030, 0, 1, 0, 0, 0, 0);
    expect(isoNow(t)).toBe('2030-01-01T00:00:00.000Z');
    expect(isoNow(t)).toBe('2030-01-01T00:00:00.000Z');
    expect(isoNow(t + 1)).toBe('2030-01-01T00:00:00.001Z');
    expect(isoNow(t)).toBe('2030-01-01T00:00:00.000Z');
  });

  it('defaults to now', () => {
    const before = Date.now();
    const stamp = Date.parse(isoNow());
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(Date.now());
  });
});
