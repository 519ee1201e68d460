import { isoTimestamp } from './event-batch';

/** What `isoTimestamp` answers without its fast path: the pattern, a real day, then `Date.parse`. */
const PATTERN = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const reference = (v: string) => {
  const m = PATTERN.exec(v);
  if (!m || m[1] === '0000') return NaN;
  // Date.parse alone rolls 02-30 over into March: the day must be one its month has
  const day = new Date(Date.UTC(2000, Number(m[2]) - 1, Number(m[3])));
  day.setUTCFullYear(Number(m[1]));
  return day.getUTCDate() === Number(m[3]) ? Date.parse(v) : NaN;
};

describe('isoTimestamp', () => {
  it('reads every text as the pattern and Date.parse read it (the toISOString form without either)', () => {
    const samples = [
      '2026-11-28T05:00:00.000Z',
      '2026-11-28T05:00:00Z',
      '2024-02-29T00:00:00Z',
      '2026-02-29T00:00:00Z', // no such day (Date.parse alone rolls it over to March 1st)
      '2026-02-30T00:00:00.000Z',
      '2026-04-31T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2000-02-29T23:59:59.999Z',
      '2026-11-28T24:00:00Z',
      '2026-11-28T23:59:60Z',
      '2026-11-28T23:60:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-01T00:00:00Z',
      '2026-01-00T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00.000Z',
      '0050-06-01T00:00:00Z',
      '0100-03-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '2026-11-28T05:00:00.12Z',
      '2026-11-28T05:00:00+01:00',
      '2026-11-28T05:00Z',
      '2026-11-28T05:00:00.000z',
      '2026-11-28 05:00:00.000Z',
      '2026-11-28T05:00:00,000Z',
      '-026-11-28T05:00:00.000Z',
      '2026-11-28T05:00:0a.000Z',
      '2026-11-28T05:00:00.-00Z',
      '２026-11-28T05:00:00.000Z',
    ];
    let seed = 11;
    const next = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed % k);
    const pad = (x: number, w: number) => String(x).padStart(w, '0');
    for (let i = 0; i < 20_000; i++) {
      let v =
        `${pad(next(10_000), 4)}-${pad(next(14), 2)}-${pad(next(33), 2)}T${pad(next(26), 2)}:` +
        `${pad(next(62), 2)}:${pad(next(62), 2)}${next(2) ? `.${pad(next(1000), 3)}` : ''}Z`;
      if (next(10) === 0) {
        const at = next(v.length);
        v = v.slice(0, at) + String.fromCharCode(32 + next(90)) + v.slice(at + 1);
      }
      samples.push(v);
    }
    for (const v of samples) expect([v, isoTimestamp(v)]).toEqual([v, reference(v)]);
    expect(isoTimestamp(1_700_000_000_000)).toBeNaN();
    for (const v of ['2026-02-29T00:00:00Z', '2026-02-30T00:00:00.000Z', '2026-04-31T10:00:00+02:00'])
      expect(isoTimestamp(v)).toBeNaN();
    expect(isoTimestamp('2024-02-29T00:00:00+01:00')).toBe(Date.UTC(2024, 1, 28, 23));
  });
});
