import type { Aggregates, WindowContents, WindowResult } from '@arbiter/event-windows';

const DAY_MS = 86_400_000;
const DAY_SLOTS = 8;
const QUOTE = 0x22;
const ZERO = 0x30;
/** Copied byte by byte below this length (a `set` call costs more than the loop for short constants). */
const SHORT = 24;
/** Texts whose JSON bytes a writer keeps (keys repeat; a batch of distinct string values must not double). */
const MAX_CACHED_TEXTS = 16_384;

/** The bytes of an ASCII text. */
const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');
/** `00` … `99` and `000` … `999` as ASCII digits, back to back. */
const TWO_DIGITS = ascii(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''));
const THREE_DIGITS = ascii(Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0')).join(''));

/**
 * JSON written straight into bytes, for a large answer (a simulate of 10,000 events is megabytes of
 * windows): no string per item, no join of millions of characters, no UTF-8 encoding of the whole text on
 * its way to the socket — what the simulate's profile spent most of its time on when the answer was built
 * as text. Times are written as `Date#toISOString` writes them (the date part of the current day cached),
 * integers digit by digit, texts through a per-writer cache of their JSON bytes (an answer repeats its keys
 * and aggregate names), anything else through `JSON.stringify`. The bytes are the text `JSON.stringify`
 * writes for the same values (tested against it). A window (`window`), the bulk of an answer, is written
 * in one go into room made for it once, its times and integers straight into the buffer.
 */
export class JsonBytesWriter {
  private buf: Buffer;
  private pos = 0;
  private readonly texts = new Map<string, Buffer>();
  private readonly days = new Float64Array(DAY_SLOTS).fill(NaN);
  private readonly dayPrefixes: Buffer[] = new Array<Buffer>(DAY_SLOTS);

  constructor(capacity = 64 * 1024) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(capacity, 1024));
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  /** The bytes written (a view of the writer's memory: the writer must not be used afterwards). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Text known to be ASCII and to need no escaping (field names, punctuation), or JSON bytes (`text`). */
  raw(bytes: Uint8Array): this {
    const n = bytes.length;
    this.room(n);
    if (n < SHORT) this.pos = put(this.buf, this.pos, bytes);
    else {
      this.buf.set(bytes, this.pos);
      this.pos += n;
    }
    return this;
  }

  byte(code: number): this {
    this.room(1);
    this.buf[this.pos++] = code;
    return this;
  }

  /** `JSON.stringify(text)`, from a cache of the texts already written. */
  string(text: string): this {
    return this.raw(this.text(text));
  }

  /** The bytes of `JSON.stringify(text)`, kept for the next time while the cache has room. */
  text(text: string): Buffer {
    let bytes = this.texts.get(text);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(text), 'utf8');
      if (this.texts.size < MAX_CACHED_TEXTS) this.texts.set(text, bytes);
    }
    return bytes;
  }

  /** `JSON.stringify(n)` of a number (`null` when not finite). */
  number(n: number): this {
    if (n === (n | 0) && n !== MIN_INT) {
      this.room(MAX_INT_BYTES);
      this.pos = putInt(this.buf, this.pos, n);
      return this;
    }
    if (!Number.isFinite(n)) return this.raw(NULL);
    return this.latin1(String(n));
  }

  /** `JSON.stringify(value ?? null)`: numbers written directly, anything else through `JSON.stringify`. */
  value(value: unknown): this {
    if (typeof value === 'number') return this.number(value);
    if (typeof value === 'string') return this.string(value);
    if (value === undefined || value === null) return this.raw(NULL);
    if (value === true) return this.raw(TRUE);
    if (value === false) return this.raw(FALSE);
    return this.utf8(JSON.stringify(value) ?? 'null');
  }

  /** `JSON.stringify(new Date(ms).toISOString())` (a RangeError for a time `toISOString` refuses). */
  time(ms: number): this {
    this.room(MAX_TIME_BYTES);
    this.pos = this.putTime(this.buf, this.pos, ms);
    return this;
  }

  /**
   * `JSON.stringify(windowView(w, contents))` (see `windowView`): the window's key (`key`: its JSON bytes
   * when the caller has them), times, count and aggregates, and with `contents` its most recent events and
   * how many more it holds (`Truncated`).
   */
  window(w: WindowResult, contents?: WindowContents, key: Uint8Array = this.text(w.key)): this {
    this.room(WINDOW_BYTES + key.length);
    let buf = this.buf;
    let pos = put(buf, this.pos, KEY);
    pos = putLong(buf, pos, key);
    pos = put(buf, pos, START);
    pos = this.putTime(buf, pos, w.start);
    pos = put(buf, pos, END);
    pos = this.putTime(buf, pos, w.end);
    pos = put(buf, pos, COUNT);
    this.pos = pos;
    this.number(w.count);
    this.raw(AGGREGATES_OPEN);
    this.aggregates(w.aggregates);
    if (contents) {
      const events = contents.events;
      const n = events.length;
      this.raw(EVENTS);
      for (let i = 0; i < n; i++) {
        const e = events[i];
        this.room(EVENT_BYTES);
        buf = this.buf;
        pos = this.pos;
        if (i) buf[pos++] = 0x2c; // ,
        pos = put(buf, pos, EVENT_TIMESTAMP);
        pos = this.putTime(buf, pos, e.timestamp);
        pos = put(buf, pos, EVENT_VALUE);
        const v = e.value;
        if (typeof v === 'number' && v === (v | 0) && v !== MIN_INT) {
          pos = putInt(buf, pos, v);
          buf[pos++] = 0x7d; // }
          this.pos = pos;
        } else {
          this.pos = pos;
          this.value(v).byte(0x7d);
        }
      }
      this.raw(TRUNCATED).number(contents.total - n);
    }
    return this.byte(0x7d);
  }

  /** `JSON.stringify(aggregates)` after its `{`: the configured names, in their order; undefined left out. */
  private aggregates(aggregates: Aggregates) {
    let first = true;
    for (const name in aggregates) {
      const value = (aggregates as Record<string, unknown>)[name];
      if (value === undefined) continue;
      let prefix = aggregateNames.get(name);
      if (prefix === undefined) {
        prefix = Buffer.from(`,${JSON.stringify(name)}:`, 'utf8');
        aggregateNames.set(name, prefix);
      }
      // the prefix is `,"name":`, its comma left out before the first
      const n = prefix.length;
      this.room(n);
      const buf = this.buf;
      let pos = this.pos;
      for (let i = first ? 1 : 0; i < n; i++) buf[pos++] = prefix[i];
      this.pos = pos;
      this.value(value);
      first = false;
    }
    this.byte(0x7d);
  }

  /** Writes the time at `pos` (room for MAX_TIME_BYTES made); returns the position after it. */
  private putTime(buf: Buffer, pos: number, ms: number): number {
    // the date part, `"2026-11-28T`, from a small cache by day (a sliding window's start is often the
    // day before its end); the time of day in integer steps, its digits from tables
    const day = Math.floor(ms / DAY_MS);
    const slot = day & (DAY_SLOTS - 1);
    let prefix = this.dayPrefixes[slot];
    if (this.days[slot] !== day) {
      const full = new Date(ms).toISOString();
      prefix = ascii(`"${full.slice(0, full.indexOf('T') + 1)}`);
      this.days[slot] = day;
      this.dayPrefixes[slot] = prefix;
    }
    pos = put(buf, pos, prefix);
    let d = Math.floor(ms - day * DAY_MS) | 0; // 0 ≤ d < 86,400,000
    const h = (d / 3_600_000) | 0;
    d -= h * 3_600_000;
    const m = (d / 60_000) | 0;
    d -= m * 60_000;
    const s = (d / 1000) | 0;
    const f = 3 * (d - s * 1000);
    buf[pos] = TWO_DIGITS[2 * h];
    buf[pos + 1] = TWO_DIGITS[2 * h + 1];
    buf[pos + 2] = 0x3a; // :
    buf[pos + 3] = TWO_DIGITS[2 * m];
    buf[pos + 4] = TWO_DIGITS[2 * m + 1];
    buf[pos + 5] = 0x3a;
    buf[pos + 6] = TWO_DIGITS[2 * s];
    buf[pos + 7] = TWO_DIGITS[2 * s + 1];
    buf[pos + 8] = 0x2e; // .
    buf[pos + 9] = THREE_DIGITS[f];
    buf[pos + 10] = THREE_DIGITS[f + 1];
    buf[pos + 11] = THREE_DIGITS[f + 2];
    buf[pos + 12] = 0x5a; // Z
    buf[pos + 13] = QUOTE;
    return pos + 14;
  }

  private latin1(text: string): this {
    this.room(text.length);
    this.pos += this.buf.write(text, this.pos, 'latin1');
    return this;
  }

  private utf8(text: string): this {
    this.room(text.length * 3);
    this.pos += this.buf.write(text, this.pos, 'utf8');
    return this;
  }

  /** Makes room for `n` more bytes: the buffer doubles (at least). */
  private room(n: number) {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

/** Copies short `bytes` to `buf` at `pos` (room made); returns the position after them. */
function put(buf: Uint8Array, pos: number, bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = 0; i < n; i++) buf[pos + i] = bytes[i];
  return pos + n;
}

/** `put` for bytes of any length. */
function putLong(buf: Uint8Array, pos: number, bytes: Uint8Array): number {
  if (bytes.length < SHORT) return put(buf, pos, bytes);
  buf.set(bytes, pos);
  return pos + bytes.length;
}

/** Writes an integer of the 32-bit range but −2³¹ (room made); returns the position after it. */
function putInt(buf: Uint8Array, pos: number, n: number): number {
  if (n < 0) {
    buf[pos++] = 0x2d; // -
    n = -n;
  }
  if (n < 10) {
    buf[pos] = ZERO + n;
    return pos + 1;
  }
  let digits = 1;
  for (let x = n; x >= 10; x = (x / 10) | 0) digits++;
  const end = pos + digits;
  let at = end;
  while (n >= 10) {
    const q = (n / 10) | 0;
    buf[--at] = ZERO + (n - q * 10);
    n = q;
  }
  buf[--at] = ZERO + n;
  return end;
}

const MIN_INT = -2147483648;
const MAX_INT_BYTES = 11;
/** A time's JSON text: `"` + the date part (`+010000-01-01T` at most) + `00:00:00.000Z"`. */
const MAX_TIME_BYTES = 32;
const NULL = ascii('null');
const TRUE = ascii('true');
const FALSE = ascii('false');
const KEY = ascii('{"Key":');
const START = ascii(',"Start":');
const END = ascii(',"End":');
const COUNT = ascii(',"Count":');
const AGGREGATES_OPEN = ascii(',"Aggregates":{');
const EVENTS = ascii(',"Events":[');
const EVENT_TIMESTAMP = ascii('{"Timestamp":');
const EVENT_VALUE = ascii(',"Value":');
const TRUNCATED = ascii('],"Truncated":');
/** Room for a window's key, times and the names around them (its key's bytes added). */
const WINDOW_BYTES = KEY.length + START.length + END.length + COUNT.length + 2 * MAX_TIME_BYTES;
/** Room for one event of a window's contents but a value other than a 32-bit integer. */
const EVENT_BYTES = 1 + EVENT_TIMESTAMP.length + MAX_TIME_BYTES + EVENT_VALUE.length + MAX_INT_BYTES + 1;
const aggregateNames = new Map<string, Buffer>();

/**
 * `JSON.stringify(windowView(w, contents))` into `out` (see `windowView`): the window's key, times, count
 * and aggregates, and with `contents` its most recent events and how many more it holds (`Truncated`).
 */
export function writeWindow(out: JsonBytesWriter, w: WindowResult, contents?: WindowContents): void {
  out.window(w, contents);
}

export { ascii };
