import {
  Aggregates,
  AggregateName,
  distinctKey,
  numericValue,
  tumblingStart,
  WindowDefinition,
  WindowResult,
} from '../src';

interface Ev {
  t: number;
  raw: unknown;
}

/**
 * The naive reference the engine is tested against: every accepted event of a key in a sorted array,
 * every window recomputed from scratch by filtering. Same rules as the engine's documentation, written
 * the obvious way (no running totals, no ring buffer, no time-to-live: dropping an expired key must not
 * change any answer).
 */
export class ReferenceWindows {
  private clock = -Infinity;
  private readonly keys = new Map<string, { wm: number; events: Ev[] }>();
  late = 0;
  private readonly lateness: number;
  private readonly names: readonly AggregateName[];

  constructor(private readonly d: WindowDefinition) {
    this.lateness = d.allowedLatenessMs ?? 0;
    this.names = d.aggregates ?? ['count', 'sum'];
  }

  add(
    key: string,
    t: number,
    raw: unknown,
  ): { late: boolean; window?: WindowResult; closed: WindowResult[] } {
    const k = this.keys.get(key) ?? { wm: -Infinity, events: [] };
    const eff = Math.max(k.wm, this.clock);
    if (t < eff - this.lateness) {
      this.late++;
      return { late: true, closed: [] };
    }
    this.keys.set(key, k);
    let p = k.events.length;
    while (p > 0 && k.events[p - 1].t > t) p--;
    k.events.splice(p, 0, { t, raw });
    k.wm = Math.max(k.wm, t);
    const size = this.d.sizeMs;
    let window: WindowResult;
    if (this.d.type === 'Sliding') {
      const inside = k.events.filter((e) => e.t > t - size && e.t <= t);
      window = this.result(key, t - size, t, inside);
    } else if (this.d.type === 'Tumbling') {
      const start = tumblingStart(t, size);
      const inside = k.events.filter((e) => tumblingStart(e.t, size) === start);
      window = this.result(key, start, start + size, inside);
    } else {
      const session = this.sessions(k.events).find((s) => s.includes(k.events[p]))!;
      window = this.result(key, session[0].t, session[session.length - 1].t + size, session);
    }
    return { late: false, window, closed: this.close(key) };
  }

  advance(now: number): WindowResult[] {
    this.clock = Math.max(this.clock, now);
    return [...this.keys.keys()].flatMap((key) => this.close(key));
  }

  private close(key: string): WindowResult[] {
    if (this.d.type === 'Sliding') return [];
    const k = this.keys.get(key)!;
    const limit = Math.max(k.wm, this.clock) - this.lateness;
    const size = this.d.sizeMs;
    const windows =
      this.d.type === 'Tumbling'
        ? [...new Set(k.events.map((e) => tumblingStart(e.t, size)))].map((start) => ({
            start,
            end: start + size,
            events: k.events.filter((e) => tumblingStart(e.t, size) === start),
          }))
        : this.sessions(k.events).map((events) => ({
            start: events[0].t,
            end: events[events.length - 1].t + size,
            events,
          }));
    const closed = windows.filter((w) => w.end <= limit);
    for (const w of closed) k.events = k.events.filter((e) => !w.events.includes(e));
    return closed.map((w) => this.result(key, w.start, w.end, w.events));
  }

  private sessions(events: Ev[]): Ev[][] {
    const out: Ev[][] = [];
    for (const e of events) {
      const last = out[out.length - 1];
      if (last && e.t - last[last.length - 1].t < this.d.sizeMs) last.push(e);
      else out.push([e]);
    }
    return out;
  }

  private result(key: string, start: number, end: number, events: Ev[]): WindowResult {
    const retain = this.d.retainValues ?? true;
    const values = events.map((e) => (retain ? e.raw : numericValue(e.raw)));
    const numbers = events.map((e) => numericValue(e.raw)).filter((x) => !Number.isNaN(x));
    const all: Required<Aggregates> = {
      count: events.length,
      sum: numbers.reduce((a, b) => a + b, 0),
      avg: numbers.length ? numbers.reduce((a, b) => a + b, 0) / numbers.length : null,
      min: numbers.length ? Math.min(...numbers) : null,
      max: numbers.length ? Math.max(...numbers) : null,
      distinctCount: new Set(values.map(distinctKey)).size,
      first: values.length ? values[0] : null,
      last: values.length ? values[values.length - 1] : null,
    };
    const aggregates: Aggregates = {};
    for (const n of this.names) (aggregates as Record<string, unknown>)[n] = all[n];
    return { key, start, end, count: events.length, aggregates };
  }
}
