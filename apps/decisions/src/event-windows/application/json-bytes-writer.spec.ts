import { JsonBytesWriter, writeWindow } from './json-bytes-writer';
import { windowView } from './window-views';

const text = (write: (out: JsonBytesWriter) => void, capacity?: number) => {
  const out = new JsonBytesWriter(capacity);
  write(out);
  return out.bytes().toString('utf8');
};

describe('JsonBytesWriter', () => {
  it('writes times as JSON.stringify(toISOString()) does, across days, years 0001-9999 and before 1970', () => {
    const samples = [
      0,
      -1,
      1,
      86_399_999,
      86_400_000,
      Date.UTC(2026, 10, 28, 23, 59, 59, 999),
      Date.UTC(2026, 10, 29),
      Date.parse('0001-01-01T00:00:00.000Z'),
      Date.parse('0001-01-01T00:00:00.000Z') - 600_000, // a window start before year 1
      Date.parse('9999-12-31T23:59:59.999Z'),
      Date.parse('9999-12-31T23:59:59.999Z') + 600_000, // a window end after year 9999
      Date.parse('1969-12-31T12:34:56.789Z'),
    ];
    let seed = 7;
    for (let i = 0; i < 5000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      samples.push(i % 2 ? Date.UTC(2026, 10, 28) + (seed % 200_000_000) : (seed / 2 ** 32) * 5e14 - 6e13);
    }
    const ms = samples.map(Math.floor);
    // a small first buffer: the writer grows as it goes
    const written = text((out) => ms.forEach((t, i) => (i ? out.byte(0x2c) : out).time(t)), 16);
    expect(written).toBe(ms.map((t) => JSON.stringify(new Date(t).toISOString())).join(','));
  });

  it('throws on an invalid time, like toISOString', () => {
    expect(() => new JsonBytesWriter().time(NaN)).toThrow(RangeError);
  });

  it('writes values as JSON.stringify(value ?? null) does', () => {
    const values = [
      0,
      -0,
      7,
      -7,
      10,
      99,
      100,
      2147483647,
      -2147483648,
      2147483648,
      -2147483649,
      1e21,
      1.5,
      -0.1,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_VALUE,
      NaN,
      Infinity,
      -Infinity,
      'text',
      'te"x\\t\n✓\u2028',
      '',
      true,
      false,
      null,
      undefined,
      { a: [1, 'x', null], b: { c: true } },
      [],
    ];
    for (const value of values) expect(text((out) => out.value(value))).toBe(JSON.stringify(value ?? null));
    // the second time a text is written it comes from the writer's cache
    expect(text((out) => out.string('k"1').byte(0x2c).string('k"1'))).toBe('"k\\"1","k\\"1"');
  });

  it('writes a window as JSON.stringify(windowView) does, with and without contents', () => {
    const w = {
      key: 'al"ice\n✓',
      start: Date.UTC(2026, 10, 28, 5),
      end: Date.UTC(2026, 10, 28, 5, 10),
      count: 4,
      aggregates: {
        count: 4,
        sum: 3.5,
        avg: NaN as number | null,
        min: null,
        first: { a: [1, 'x'] },
        last: undefined,
      },
    };
    const contents = {
      events: [
        { timestamp: w.start + 1, value: 1 },
        { timestamp: w.start + 2, value: 'te"xt' },
        { timestamp: w.start + 3, value: undefined },
        { timestamp: w.start + 4, value: { nested: [null, true] } },
      ],
      total: 9,
    };
    const window = (c?: typeof contents) => text((out) => writeWindow(out, w, c), 8);
    expect(window()).toBe(JSON.stringify(windowView(w)));
    expect(window(contents)).toBe(JSON.stringify(windowView(w, contents)));
    const none = { events: [], total: 0 };
    expect(window(none)).toBe(JSON.stringify(windowView(w, none)));
    expect(JSON.parse(window(contents))).toMatchObject({ Key: w.key, Count: 4, Truncated: 5 });
    const allUndefined = { ...w, aggregates: { last: undefined } };
    expect(text((out) => writeWindow(out, allUndefined))).toBe(JSON.stringify(windowView(allUndefined)));
  });
});
