import { compileDecisionTable, compileDecisionTableSliced } from './compile';
import { TableCompileError } from './errors';
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

describe('compileDecisionTableSliced', () => {
  const table = (rows: number, hitPolicy: string) => ({
    name: 't',
    hitPolicy,
    inputColumns: [
      { name: 'age', type: 'number' },
      { name: 'country', type: 'string' },
      { name: 'vip', type: 'boolean' },
      { name: 'note', type: 'string' },
    ],
    outputColumns: [{ name: 'score', type: 'number' }],
    rows: Array.from({ length: rows }, (_, i) => ({
      id: `r${i}`,
      inputConditions: {
        age: i % 3 ? `[${i % 90}..${(i % 90) + 7}]` : `>= ${i % 70}`,
        country: ['"NL"', '-', '"BE","DE"', 'not("FR")'][i % 4],
        vip: ['-', 'true', 'false'][i % 3],
        note: i % 11 === 0 ? 'string length(?) > 2' : '-',
      },
      outputs: { score: i },
    })),
  });

  it('compiles the table compileDecisionTable compiles, handing the event loop back meanwhile', async () => {
    for (const policy of ['First', 'Collect', 'RuleOrder']) {
      const def = table(3_000, policy);
      let ticks = 0;
      const timer = setInterval(() => ticks++, 0);
      const sliced = await compileDecisionTableSliced(def);
      clearInterval(timer);
      expect(ticks).toBeGreaterThan(1);
      const whole = compileDecisionTable(def);
      for (let i = 0; i < 100; i++) {
        const input = {
          age: (i * 7) % 100,
          country: ['NL', 'BE', 'DE', 'FR', 'US'][i % 5],
          vip: i % 2 === 0,
          note: i % 3 ? 'abcd' : 'a',
        };
        expect(sliced.evaluate(input)).toEqual(whole.evaluate(input));
      }
    }
  }, 60_000);

  it('refuses a bad table as compileDecisionTable does', async () => {
    const def = table(5, 'First');
    def.rows[2].inputConditions.age = '[1..';
    await expect(compileDecisionTableSliced(def)).rejects.toBeInstanceOf(TableCompileError);
  });
});
