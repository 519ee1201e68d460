import {
  ACCEPTED,
  AddStatus,
  AggregateName,
  Aggregates,
  EngineCounters,
  LATE,
  WindowDefinition,
  WindowEvent,
  WindowResult,
  WindowType,
} from './types';

/** .NET ticks (100 ns) from 0001-01-01 to the Unix epoch, in ms: tumbling buckets align on .NET ticks. */
export const DOTNET_EPOCH_OFFSET_MS = 62_135_596_800_000;

/** The spec's tumbling boundary: floor(event ticks / window ticks) × window ticks, in epoch ms. */
export function tumblingStart(timestamp: number, sizeMs: number): number {
  return Math.floor((timestamp + DOTNET_EPOCH_OFFSET_MS) / sizeMs) * sizeMs - DOTNET_EPOCH_OFFSET_MS;
}

/** The number an event contributes to sum/avg/min/max: a finite number (or numeric text), else NaN. */
export function numericValue(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : NaN;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : NaN;
  }
  return NaN;
}

export function checkDefinition(definition: WindowDefinition): string | null {
  const { sizeMs, timeToLiveMs, allowedLatenessMs = 0 } = definition;
  if (!(sizeMs > 0) || !Number.isFinite(sizeMs)) return 'sizeMs must be a positive number';
  if (!(timeToLiveMs >= sizeMs) || !Number.isFinite(timeToLiveMs))
    return 'timeToLiveMs must be at least sizeMs';
  if (!(allowedLatenessMs >= 0) || !Number.isFinite(allowedLatenessMs))
    return 'allowedLatenessMs must be zero or positive';
  return null;
}

const INITIAL_CAPACITY = 4;

/**
 * The buffered events of one key, sorted by time (ties in arrival order): one Float64Array of
 * `[timestamp, numeric value]` pairs between `head` and `tail`, and, when values are retained, a plain
 * array of the original values at the same indexes. `[wStart, tail)` is the key's current window (the one
 * holding its watermark) whose count and sum are kept as running totals.
 */
class KeyState {
  buf: Float64Array;
  raw: unknown[] | null;
  head = 0;
  tail = 0;
  wStart = 0;
  wCount = 0;
  wNum = 0;
  wSum = 0;
  /** Latest event time accepted for this key. */
  wm = -Infinity;
  /** Tumbling: start of the current bucket. */
  cur = NaN;
  /** Lower bound of the effective watermark at which the oldest open window may close. */
  nextCloseAt = Infinity;

  constructor(retain: boolean) {
    this.buf = new Float64Array(INITIAL_CAPACITY * 2);
    this.raw = retain ? [] : null;
  }
}

export type CloseListener = (window: WindowResult, contents: (limit: number) => WindowContents) => void;

export interface WindowContents {
  /** The most recent `limit` events of the window, oldest first. */
  events: WindowEvent[];
  /** How many events the window holds. */
  total: number;
}

/**
 * Windows of one configuration, per correlation key, in event time.
 *
 * - A key's watermark is the latest event time accepted for it; the engine's clock (`advance(now)`) raises
 *   every key's effective watermark to `now`, so windows close on the clock without new events.
 * - An event older than the effective watermark minus the allowed lateness is late: counted, reported
 *   (`add` returns `LATE`), never merged. Any other event is merged into its window, in time order.
 * - Sliding: the event's window is `(t − size, t]` of the same key. Tumbling: `[start, start + size)` with the
 *   spec's tick alignment. Session: events closer than `size` (the gap) to their neighbour form one session.
 * - Tumbling and session windows close (the listener gets their aggregates) once no accepted event can
 *   fall into them any more: end ≤ effective watermark − allowed lateness.
 * - A key whose watermark is `timeToLive` behind (after the lateness) is dropped on `advance`: its events
 *   are gone and it costs nothing.
 *
 * `add` allocates nothing on the common path (events in order): count and sum of the event's window are
 * left in `lastCount` / `lastSum`; `lastWindow()` computes every configured aggregate on demand.
 */
export class WindowEngine {
  readonly counters: EngineCounters = { accepted: 0, late: 0, evicted: 0, expiredKeys: 0, closed: 0 };
  readonly type: WindowType;
  readonly sizeMs: number;
  readonly timeToLiveMs: number;
  readonly allowedLatenessMs: number;
  readonly aggregateNames: readonly AggregateName[];
  private readonly retain: boolean;
  /** Sliding with no allowed lateness: an in-order event's window start is also the eviction bound. */
  private readonly slidingStrict: boolean;
  private readonly keys = new Map<string, KeyState>();
  private clock = -Infinity;
  private buffered = 0;

  /** Result of the last `add`. */
  lastStatus: AddStatus = ACCEPTED;
  lastStart = 0;
  lastEnd = 0;
  lastCount = 0;
  lastSum = 0;
  private lastKey = '';
  private lastState: KeyState | null = null;
  private lastA = 0;
  private lastB = 0;

  constructor(
    definition: WindowDefinition,
    private readonly onClose?: CloseListener,
  ) {
    const problem = checkDefinition(definition);
    if (problem) throw new RangeError(problem);
    this.type = definition.type;
    this.sizeMs = definition.sizeMs;
    this.timeToLiveMs = definition.timeToLiveMs;
    this.allowedLatenessMs = definition.allowedLatenessMs ?? 0;
    this.aggregateNames = definition.aggregates ?? ['count', 'sum'];
    this.retain = definition.retainValues ?? true;
    this.slidingStrict = this.type === 'Sliding' && this.allowedLatenessMs === 0;
  }

  /** The engine's clock (−Infinity before the first `advance`). */
  get now(): number {
    return this.clock;
  }

  get keyCount(): number {
    return this.keys.size;
  }

  /** Events currently held in memory over all keys. */
  get bufferedEvents(): number {
    return this.buffered;
  }

  /** Adds one event; `LATE` when it is behind its key's watermark by more than the allowed lateness. */
  add(key: string, timestamp: number, value: unknown): AddStatus {
    let s = this.keys.get(key);
    const eff = s === undefined ? this.clock : s.wm > this.clock ? s.wm : this.clock;
    if (timestamp < eff - this.allowedLatenessMs || timestamp !== timestamp) {
      this.counters.late++;
      this.lastStatus = LATE;
      this.lastState = null;
      return LATE;
    }
    if (s === undefined) {
      s = new KeyState(this.retain);
      this.keys.set(key, s);
    }
    const v = typeof value === 'number' ? value : numericValue(value);
    this.counters.accepted++;
    this.lastStatus = ACCEPTED;
    this.lastKey = key;
    this.lastState = s;
    if (this.slidingStrict && timestamp >= s.wm) {
      this.slideStrict(s, timestamp, v, value);
      return ACCEPTED;
    }
    if (timestamp >= s.wm) this.inOrder(s, timestamp, v, value);
    else this.outOfOrder(s, timestamp, v, value);
    if (this.type === 'Sliding') this.evictSliding(s);
    else this.closeDue(key, s);
    return ACCEPTED;
  }

  /**
   * Moves the clock to `now` (never back): closes every tumbling and session window that can no longer
   * change, slides sliding windows, and drops keys past their time-to-live.
   */
  advance(now: number): void {
    if (now > this.clock) this.clock = now;
    const ttl = this.timeToLiveMs;
    const lateness = this.allowedLatenessMs;
    for (const [key, s] of this.keys) {
      if (this.type === 'Sliding') this.evictSliding(s);
      else this.closeDue(key, s);
      const eff = s.wm > this.clock ? s.wm : this.clock;
      if (eff - lateness - s.wm >= ttl) {
        const held = s.tail - s.head;
        this.counters.evicted += held;
        this.buffered -= held;
        this.counters.expiredKeys++;
        this.keys.delete(key);
        if (this.lastState === s) this.lastState = null;
      }
    }
  }

  /**
   * Moves the clock to `now` (never back) without visiting the keys: later events are judged late against
   * it at once, windows of keys not touched close at the next `advance`. What a live replica does per
   * message (the clock of the message's arrival), so a replay of the same messages judges them the same.
   */
  raiseClock(now: number): void {
    if (now > this.clock) this.clock = now;
  }

  /** The window the last accepted event fell into, with every configured aggregate. */
  lastWindow(): WindowResult | null {
    const s = this.lastState;
    if (!s) return null;
    return {
      key: this.lastKey,
      start: this.lastStart,
      end: this.lastEnd,
      count: this.lastB - this.lastA,
      aggregates: this.aggregate(s, this.lastA, this.lastB),
    };
  }

  /** The contents of the last accepted event's window: the most recent `limit` events and the total. */
  lastContents(limit: number): WindowContents {
    const s = this.lastState;
    if (!s) return { events: [], total: 0 };
    return this.contents(s, this.lastA, this.lastB, limit);
  }

  /**
   * `lastWindow()` and `lastContents(limit)` written into `into` (its objects reused, nothing allocated
   * once they have grown): for a caller that reads them at once, per event of a large batch. False (and
   * `into` untouched) when there is no such window.
   */
  lastWindowInto(into: WindowResult & { contents: WindowContents }, limit: number): boolean {
    const s = this.lastState;
    if (!s) return false;
    const a = this.lastA;
    const e = this.lastB;
    into.key = this.lastKey;
    into.start = this.lastStart;
    into.end = this.lastEnd;
    into.count = e - a;
    this.aggregate(s, a, e, into.aggregates);
    const events = into.contents.events;
    const from = Math.max(a, e - Math.max(0, limit));
    let n = 0;
    for (let i = from; i < e; i++, n++) {
      const timestamp = s.buf[2 * i];
      const value = s.raw ? s.raw[i] : s.buf[2 * i + 1];
      if (n < events.length) {
        events[n].timestamp = timestamp;
        events[n].value = value;
      } else events.push({ timestamp, value });
    }
    events.length = n;
    into.contents.total = e - a;
    return true;
  }

  /**
   * A key's current window at the effective watermark: sliding `(now − size, now]`; tumbling, the open
   * bucket holding the key's latest event; session, the open session. `null` when the key holds nothing.
   */
  current(key: string, limit = 0): { window: WindowResult; contents: WindowContents } | null {
    const s = this.keys.get(key);
    if (!s || s.tail === s.head) return null;
    const eff = s.wm > this.clock ? s.wm : this.clock;
    const b = s.buf;
    let a = s.wStart;
    const end = s.tail;
    let start: number;
    let stop: number;
    if (this.type === 'Sliding') {
      const lo = eff - this.sizeMs;
      while (a < end && b[2 * a] <= lo) a++;
      start = lo;
      stop = eff;
    } else if (this.type === 'Tumbling') {
      start = s.cur;
      stop = s.cur + this.sizeMs;
    } else {
      start = b[2 * a];
      stop = s.wm + this.sizeMs;
    }
    if (a >= end) return null;
    return {
      window: { key, start, end: stop, count: end - a, aggregates: this.aggregate(s, a, end) },
      contents: this.contents(s, a, end, limit),
    };
  }

  /** Keys held, for diagnostics. */
  keysHeld(): IterableIterator<string> {
    return this.keys.keys();
  }

  // ------------------------------------------------------------------ internals

  private inOrder(s: KeyState, t: number, v: number, raw: unknown) {
    const size = this.sizeMs;
    if (this.type === 'Tumbling') {
      const bs = tumblingStart(t, size);
      const i = this.append(s, t, v, raw);
      if (bs !== s.cur || s.wStart >= i) {
        s.cur = bs;
        s.wStart = i;
        s.wCount = s.wNum = s.wSum = 0;
      }
      this.addToTotals(s, v);
      s.wm = t;
      this.lastStart = bs;
      this.lastEnd = bs + size;
      const closeAt = bs + size + this.allowedLatenessMs;
      if (closeAt < s.nextCloseAt) s.nextCloseAt = closeAt;
    } else if (this.type === 'Sliding') {
      const i = this.append(s, t, v, raw);
      this.addToTotals(s, v);
      s.wm = t;
      const lo = t - size;
      const b = s.buf;
      let w = s.wStart;
      while (w < i && b[2 * w] <= lo) {
        const x = b[2 * w + 1];
        s.wCount--;
        if (x === x) {
          s.wNum--;
          s.wSum -= x;
        }
        w++;
      }
      s.wStart = w;
      this.lastStart = lo;
      this.lastEnd = t;
    } else {
      const fresh = s.wStart >= s.tail || t - s.wm >= size;
      const i = this.append(s, t, v, raw);
      if (fresh) {
        s.wStart = i;
        s.wCount = s.wNum = s.wSum = 0;
      }
      this.addToTotals(s, v);
      s.wm = t;
      this.lastStart = s.buf[2 * s.wStart];
      this.lastEnd = t + size;
      const closeAt = t + size + this.allowedLatenessMs;
      if (closeAt < s.nextCloseAt) s.nextCloseAt = closeAt;
    }
    this.lastCount = s.wCount;
    this.lastSum = s.wSum;
    this.lastA = s.wStart;
    this.lastB = s.tail;
  }

  /**
   * The hot path of a sliding window without allowed lateness, for an event in order: append, move the
   * window start past `t − size` updating count and sum, and drop what the start passed (an accepted event is
   * never behind the clock then, so the eviction bound is the window start). One pass, no allocation.
   */
  private slideStrict(s: KeyState, t: number, v: number, raw: unknown) {
    if (s.tail * 2 >= s.buf.length) this.makeRoom(s);
    const b = s.buf;
    const i = s.tail;
    b[2 * i] = t;
    b[2 * i + 1] = v;
    if (s.raw) s.raw[i] = raw;
    s.tail = i + 1;
    s.wCount++;
    if (v === v) {
      s.wNum++;
      s.wSum += v;
    }
    s.wm = t;
    const lo = t - this.sizeMs;
    let w = s.wStart;
    while (w < i && b[2 * w] <= lo) {
      const x = b[2 * w + 1];
      s.wCount--;
      if (x === x) {
        s.wNum--;
        s.wSum -= x;
      }
      w++;
    }
    s.wStart = w;
    const h = s.head;
    if (w > h) {
      if (s.raw) for (let k = h; k < w; k++) s.raw[k] = undefined;
      this.counters.evicted += w - h;
      this.buffered -= w - h;
      s.head = w;
    }
    this.buffered++;
    this.lastStart = lo;
    this.lastEnd = t;
    this.lastCount = s.wCount;
    this.lastSum = s.wSum;
    this.lastA = w;
    this.lastB = i + 1;
  }

  private outOfOrder(s: KeyState, t: number, v: number, raw: unknown) {
    const size = this.sizeMs;
    const p = this.insert(s, t, v, raw);
    const b = s.buf;
    let a = p;
    let e = p + 1;
    if (this.type === 'Sliding') {
      if (t > s.wm - size) this.addToTotals(s, v);
      else s.wStart++;
      const lo = t - size;
      while (a > s.head && b[2 * (a - 1)] > lo) a--;
      this.lastStart = lo;
      this.lastEnd = t;
    } else if (this.type === 'Tumbling') {
      const bs = tumblingStart(t, size);
      if (bs === s.cur) this.addToTotals(s, v);
      else s.wStart++;
      while (a > s.head && b[2 * (a - 1)] >= bs) a--;
      while (e < s.tail && b[2 * e] < bs + size) e++;
      this.lastStart = bs;
      this.lastEnd = bs + size;
      const closeAt = bs + size + this.allowedLatenessMs;
      if (closeAt < s.nextCloseAt) s.nextCloseAt = closeAt;
    } else {
      // the event may extend a session backwards or bridge two: recompute the current one
      let w = s.tail - 1;
      while (w > s.head && b[2 * w] - b[2 * (w - 1)] < size) w--;
      s.wStart = w;
      s.wCount = s.wNum = s.wSum = 0;
      for (let i = w; i < s.tail; i++) this.addToTotals(s, b[2 * i + 1]);
      while (a > s.head && b[2 * a] - b[2 * (a - 1)] < size) a--;
      while (e < s.tail && b[2 * e] - b[2 * (e - 1)] < size) e++;
      this.lastStart = b[2 * a];
      this.lastEnd = b[2 * (e - 1)] + size;
      // a new session of its own before the others closes first
      const closeAt = this.lastEnd + this.allowedLatenessMs;
      if (closeAt < s.nextCloseAt) s.nextCloseAt = closeAt;
    }
    let count = 0;
    let sum = 0;
    for (let i = a; i < e; i++) {
      count++;
      const x = b[2 * i + 1];
      if (x === x) sum += x;
    }
    this.lastCount = count;
    this.lastSum = sum;
    this.lastA = a;
    this.lastB = e;
  }

  private addToTotals(s: KeyState, v: number) {
    s.wCount++;
    if (v === v) {
      s.wNum++;
      s.wSum += v;
    }
  }

  /** Appends at the tail (compacting or growing the buffer first); returns the new event's index. */
  private append(s: KeyState, t: number, v: number, raw: unknown): number {
    if (s.tail * 2 >= s.buf.length) this.makeRoom(s);
    const i = s.tail;
    s.buf[2 * i] = t;
    s.buf[2 * i + 1] = v;
    if (s.raw) s.raw[i] = raw;
    s.tail++;
    this.buffered++;
    return i;
  }

  /** Inserts after every event with a time ≤ t; returns its index. */
  private insert(s: KeyState, t: number, v: number, raw: unknown): number {
    if (s.tail * 2 >= s.buf.length) this.makeRoom(s);
    const b = s.buf;
    let p = s.tail;
    while (p > s.head && b[2 * (p - 1)] > t) p--;
    b.copyWithin(2 * (p + 1), 2 * p, 2 * s.tail);
    b[2 * p] = t;
    b[2 * p + 1] = v;
    if (s.raw) s.raw.splice(p, 0, raw);
    s.tail++;
    this.buffered++;
    return p;
  }

  private makeRoom(s: KeyState) {
    const held = s.tail - s.head;
    const capacity = s.buf.length / 2;
    // compact only when at most a quarter is live: then ≥ 3/4 of the buffer is free again afterwards, so a
    // window holding about half the buffer does not compact every few events (seen at 17 % in a profile)
    if (s.head > 0 && held <= capacity / 4) {
      s.buf.copyWithin(0, 2 * s.head, 2 * s.tail);
      if (s.raw) {
        s.raw.copyWithin(0, s.head, s.tail);
        s.raw.length = held;
      }
    } else {
      const next = new Float64Array(capacity * 4);
      next.set(s.buf.subarray(2 * s.head, 2 * s.tail));
      s.buf = next;
      if (s.raw && s.head > 0) {
        s.raw.copyWithin(0, s.head, s.tail);
        s.raw.length = held;
      }
    }
    s.wStart -= s.head;
    s.tail = held;
    s.head = 0;
  }

  private evictSliding(s: KeyState) {
    const eff = s.wm > this.clock ? s.wm : this.clock;
    const bound = eff - this.sizeMs - this.allowedLatenessMs;
    const b = s.buf;
    let h = s.head;
    while (h < s.tail && b[2 * h] <= bound) {
      if (h >= s.wStart) {
        const x = b[2 * h + 1];
        s.wCount--;
        if (x === x) {
          s.wNum--;
          s.wSum -= x;
        }
      }
      if (s.raw) s.raw[h] = undefined;
      h++;
    }
    if (h !== s.head) {
      this.counters.evicted += h - s.head;
      this.buffered -= h - s.head;
      s.head = h;
      if (s.wStart < h) s.wStart = h;
      if (h === s.tail) this.reset(s);
    }
  }

  /** Closes the tumbling buckets or sessions of a key that no accepted event can reach any more. */
  private closeDue(key: string, s: KeyState) {
    const eff = s.wm > this.clock ? s.wm : this.clock;
    if (eff < s.nextCloseAt) return;
    const limit = eff - this.allowedLatenessMs;
    const size = this.sizeMs;
    const b = s.buf;
    const tumbling = this.type === 'Tumbling';
    s.nextCloseAt = Infinity;
    while (s.head < s.tail) {
      let j = s.head + 1;
      let start: number;
      let end: number;
      if (tumbling) {
        start = tumblingStart(b[2 * s.head], size);
        end = start + size;
        if (end > limit) {
          s.nextCloseAt = end + this.allowedLatenessMs;
          break;
        }
        while (j < s.tail && b[2 * j] < end) j++;
      } else {
        start = b[2 * s.head];
        while (j < s.tail && b[2 * j] - b[2 * (j - 1)] < size) j++;
        end = b[2 * (j - 1)] + size;
        if (end > limit) {
          s.nextCloseAt = end + this.allowedLatenessMs;
          break;
        }
      }
      const a = s.head;
      if (this.onClose) {
        this.onClose({ key, start, end, count: j - a, aggregates: this.aggregate(s, a, j) }, (max: number) =>
          this.contents(s, a, j, max),
        );
      }
      this.counters.closed++;
      this.counters.evicted += j - a;
      this.buffered -= j - a;
      if (s.raw) for (let i = a; i < j; i++) s.raw[i] = undefined;
      s.head = j;
    }
    if (s.head >= s.tail) this.reset(s);
    else if (s.wStart < s.head) s.wStart = s.head;
  }

  private reset(s: KeyState) {
    s.head = s.tail = s.wStart = 0;
    s.wCount = s.wNum = s.wSum = 0;
    s.cur = NaN;
    s.nextCloseAt = Infinity;
    if (s.raw) s.raw.length = 0;
    if (s === this.lastState) this.lastState = null;
  }

  private contents(s: KeyState, a: number, e: number, limit: number): WindowContents {
    const events: WindowEvent[] = [];
    for (let i = Math.max(a, e - Math.max(0, limit)); i < e; i++)
      events.push({ timestamp: s.buf[2 * i], value: s.raw ? s.raw[i] : s.buf[2 * i + 1] });
    return { events, total: e - a };
  }

  /** The configured aggregates of events [a, e), set on `out` (a new object by default), in their order. */
  private aggregate(s: KeyState, a: number, e: number, out: Aggregates = {}): Aggregates {
    const names = this.aggregateNames;
    const b = s.buf;
    let sum = 0;
    let n = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = a; i < e; i++) {
      const x = b[2 * i + 1];
      if (x === x) {
        sum += x;
        n++;
        if (x < min) min = x;
        if (x > max) max = x;
      }
    }
    for (const name of names) {
      switch (name) {
        case 'count':
          out.count = e - a;
          break;
        case 'sum':
          out.sum = sum;
          break;
        case 'avg':
          out.avg = n ? sum / n : null;
          break;
        case 'min':
          out.min = n ? min : null;
          break;
        case 'max':
          out.max = n ? max : null;
          break;
        case 'distinctCount': {
          const seen = new Set<unknown>();
          for (let i = a; i < e; i++) seen.add(distinctKey(valueAt(s, i)));
          out.distinctCount = seen.size;
          break;
        }
        case 'first':
          out.first = e > a ? valueAt(s, a) : null;
          break;
        case 'last':
          out.last = e > a ? valueAt(s, e - 1) : null;
          break;
      }
    }
    return out;
  }
}

/** The original value of a key's event `i` (its numeric value when values are not retained). */
function valueAt(s: KeyState, i: number): unknown {
  return s.raw ? s.raw[i] : s.buf[2 * i + 1];
}

/** Values compared by `distinctCount`: primitives as they are, objects by their JSON text. */
export function distinctKey(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? `\u0000${JSON.stringify(value)}` : value;
}

export { ACCEPTED, LATE };
