import type { EventBus } from '@arbiter/platform';
import { ValidationCache, ValidationRow } from './validation-cache';

const row = (tier: string): ValidationRow => ({
  tier,
  allowed_features: [],
  expires_at: new Date(Date.now() + 86_400_000),
  is_revoked: false,
  activated: true,
});

/** A read whose answers the test releases one by one. */
function reads() {
  const calls: ((r: ValidationRow) => void)[] = [];
  const read = () => new Promise<ValidationRow | undefined>((resolve) => calls.push(resolve));
  return { calls, read };
}

describe('ValidationCache (refresh ahead)', () => {
  const bus = { status: () => ({ kind: 'memory' }) } as unknown as EventBus; // 1 s time to live
  let now: number;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('answers a hit past 3/4 of the TTL from the entry and reads it once in the background', async () => {
    const cache = new ValidationCache(bus);
    const { calls, read } = reads();
    const first = cache.load('k', 'KEY', read);
    calls[0](row('v1'));
    await first;
    now += 500;
    expect(cache.get('k')?.row?.tier).toBe('v1');
    expect(calls).toHaveLength(1); // fresh: no read
    now += 300; // 800 ms: due
    expect(cache.get('k')?.row?.tier).toBe('v1');
    expect(cache.get('k')?.row?.tier).toBe('v1');
    expect(calls).toHaveLength(2); // one background read for both hits
    calls[1](row('v2'));
    await new Promise((r) => setImmediate(r));
    now += 500; // 1.3 s after the first read, 500 ms after the refresh started: still cached, refreshed
    expect(cache.get('k')?.row?.tier).toBe('v2');
    now += 500; // the refreshed entry's age counts from the start of its read: 1 s → expired
    expect(cache.get('k')).toBeUndefined();
  });

  it('a refresh that started before a change is not stored, and the entry still expires on time', async () => {
    const cache = new ValidationCache(bus);
    const { calls, read } = reads();
    const first = cache.load('k', 'KEY', read);
    calls[0](row('v1'));
    await first;
    now += 800;
    cache.get('k'); // starts the refresh
    expect(calls).toHaveLength(2);
    cache.set('other', 'OTHER', row('x'));
    cache.forget('KEY'); // the license changed while the refresh was under way
    calls[1](row('stale'));
    await new Promise((r) => setImmediate(r));
    expect(cache.get('k')).toBeUndefined();
  });

  it('without a hit past 3/4 of the TTL nothing is read; an entry used after its TTL is a miss', async () => {
    const cache = new ValidationCache(bus);
    const { calls, read } = reads();
    const first = cache.load('k', 'KEY', read);
    calls[0](row('v1'));
    await first;
    now += 1000;
    expect(cache.get('k')).toBeUndefined();
    expect(calls).toHaveLength(1);
  });
});
