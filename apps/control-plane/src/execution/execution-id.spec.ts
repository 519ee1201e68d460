import { newExecutionId } from './execution-id';

describe('newExecutionId (UUID version 7)', () => {
  it('is a canonical UUID with version 7 and the RFC 9562 variant', () => {
    for (let i = 0; i < 1_000; i++) {
      const id = newExecutionId();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('carries the millisecond in its first 48 bits', () => {
    const t = Date.UTC(2026, 10, 24, 17, 5, 0, 123);
    const id = newExecutionId(t);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(t);
    expect(newExecutionId(0).startsWith('00000000-0000-7')).toBe(true);
  });

  it('sorts ids of later milliseconds after earlier ones', () => {
    const t = Date.now();
    const ids = [t - 86_400_000, t - 1, t, t + 1, t + 3_600_000].map((ms) => newExecutionId(ms));
    expect([...ids].sort()).toEqual(ids);
  });

  it('never repeats itself, within a millisecond and across refills of its random pool', () => {
    const t = Date.now();
    const ids = new Set(Array.from({ length: 20_000 }, () => newExecutionId(t)));
    expect(ids.size).toBe(20_000);
    const randomParts = new Set([...ids].map((id) => id.slice(15)));
    expect(randomParts.size).toBe(20_000);
  });
});
