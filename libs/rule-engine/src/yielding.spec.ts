import { forEachYielding } from './yielding';

describe('forEachYielding', () => {
  it('visits every item in order, with its index', async () => {
    const seen: [string, number][] = [];
    await forEachYielding(['a', 'b', 'c'], (item, i) => seen.push([item, i]));
    expect(seen).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
  });

  it('gives the event loop back while a long loop runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    // 400 items of 0.5 ms: 200 ms of work in slices of 4 ms
    await forEachYielding(Array.from({ length: 400 }), () => busy(0.5), 4);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
  });

  it('holds the loop for nothing when the work is small', async () => {
    let ticked = false;
    const timer = setImmediate(() => (ticked = true));
    await forEachYielding([1, 2, 3], () => undefined);
    clearImmediate(timer);
    expect(ticked).toBe(false);
  });
});
