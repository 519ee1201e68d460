import type { Aggregates, WindowContents, WindowResult } from '@arbiter/event-windows';

const DAY_MS = 86_400_000;
const DAY_SLOTS = 8;
const QUOTE = 0x22;
const ZERO = 0x30;
/** Copied byte by byte below this length (a `set` call costs more than the loop for short constants). */
const SHORT = 24;
/** Texts whose JSON bytes a writer keeps (keys repeat; a batch of distinct string values must not double). */
const MAX_CACHED_TEXTS = 16_384;

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

/**
 * JSON written straight into bytes, for a large answer (a simulate of 10,000 events is megabytes of
 * windows): no string per item, no join of millions of characters, no UTF-8 encoding of the whole text on
 * its way to the socket — what the simulate's profile spent most of its time on when the answer was built
 * as text. Times are written as `Date#toISOString` writes them (the date part of the current day cached),
 * integers digit by digit, texts through a per-writer cache of their JSON bytes (an answer repeats its keys
 * and aggregate names), anything else through `JSON.stringify`. The bytes are the text `JSON.stringify`
 * writes for the same values (tested against it).
 */
export class JsonBytesWriter {
  private buf: Buffer;
  private pos = 0;
  private readonly texts = new Map<string, Uint8Array>();
  private readonly days = new Float64Array(DAY_SLOTS).fill(NaN);
  private readonly dayPrefixes: Uint8Array[] = new Array<Uint8Array>(DAY_SLOTS);

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

  /** Text known to be ASCII and to need no escaping (field names, punctuation). */
  raw(bytes: Uint8Array): this {
    const n = bytes.length;
    this.room(n);
    const buf = this.buf;
    let pos = this.pos;
    if (n < SHORT) for (let i = 0; i < n; i++) buf[pos++] = bytes[i];
    else {
      buf.set(bytes, pos);
      pos += n;
    }
    this.pos = pos;
    return this;
  }

  byte(code: number): this {
    this.room(1);
    this.buf[this.pos++] = code;
    return this;
  }

  /** `JSON.stringify(text)`, from a cache of the texts already written. */
  string(text: string): this {
    let bytes = this.texts.get(text);
    if (bytes === undefined) {
      if (this.texts.size >= MAX_CACHED_TEXTS) return this.utf8(JSON.stringify(text));
      bytes = Buffer.from(JSON.stringify(text), 'utf8');
      this.texts.set(text, bytes);
    }
    return this.raw(bytes);
  }

  /** `JSON.stringify(n)` of a number (`null` when not finite). */
  number(n: number): this {
    if (n === (n | 0)) return this.int(n);
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
    // the date part, `"2026-11-28T`, from a small cache by day (a sliding window's start is often the
    // day before its end)
    const day = Math.floor(ms / DAY_MS);
    const slot = day & (DAY_SLOTS - 1);
    let prefix = this.dayPrefixes[slot];
    if (this.days[slot] !== day) {
      const full = new Date(ms).toISOString();
      prefix = ascii(`"${full.slice(0, full.indexOf('T') + 1)}`);
      this.days[slot] = day;
      this.dayPrefixes[slot] = prefix;
    }
    const d = ms - day * DAY_MS;
    this.raw(prefix);
    this.room(15);
    const buf = this.buf;
    let pos = this.pos;
    const h = Math.floor(d / 3_600_000);
    const m = Math.floor(d / 60_000) % 60;
    const s = Math.floor(d / 1000) % 60;
    const f = Math.floor(d) % 1000;
    buf[pos++] = ZERO + ((h / 10) | 0);
    buf[pos++] = ZERO + (h % 10);
    buf[pos++] = 0x3a; // :
    buf[pos++] = ZERO + ((m / 10) | 0);
    buf[pos++] = ZERO + (m % 10);
    buf[pos++] = 0x3a;
    buf[pos++] = ZERO + ((s / 10) | 0);
    buf[pos++] = ZERO + (s % 10);
    buf[pos++] = 0x2e; // .
    buf[pos++] = ZERO + ((f / 100) | 0);
    buf[pos++] = ZERO + (((f / 10) | 0) % 10);
    buf[pos++] = ZERO + (f % 10);
    buf[pos++] = 0x5a; // Z
    buf[pos++] = QUOTE;
    this.pos = pos;
    return this;
  }

  /** An integer of the 32-bit range, digit by digit. */
  private int(n: number): this {
    this.room(11);
    const buf = this.buf;
    if (n < 0) {
      if (n === -2147483648) return this.latin1('-2147483648');
      buf[this.pos++] = 0x2d; // -
      n = -n;
    }
    if (n < 10) {
      buf[this.pos++] = ZERO + n;
      return this;
    }
    let digits = 1;
    for (let x = n; x >= 10; x = (x / 10) | 0) digits++;
    let at = this.pos + digits;
    this.pos = at;
    while (n >= 10) {
      const q = (n / 10) | 0;
      buf[--at] = ZERO + (n - q * 10);
      n = q;
    }
    buf[--at] = ZERO + n;
    return this;
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

const NULL = ascii('null');
const TRUE = ascii('true');
const FALSE = ascii('false');
const KEY = ascii('{"Key":');
const START = ascii(',"Start":');
const END = ascii(',"End":');
const COUNT = ascii(',"Count":');
const AGGREGATES = ascii(',"Aggregates":');
const EVENTS = ascii(',"Events":[');
const EVENT_TIMESTAMP = ascii('{"Timestamp":');
const EVENT_VALUE = ascii(',"Value":');
const TRUNCATED = ascii('],"Truncated":');
const aggregateNames = new Map<string, Uint8Array>();

/** `JSON.stringify(aggregates)`: the configured names, in their order; an undefined value is left out. */
function writeAggregates(out: JsonBytesWriter, aggregates: Aggregates) {
  let first = true;
  for (const name in aggregates) {
    const value = (aggregates as Record<string, unknown>)[name];
    if (value === undefined) continue;
    let prefix = aggregateNames.get(name);
    if (prefix === undefined) {
      prefix = Buffer.from(`,${JSON.stringify(name)}:`, 'utf8');
      aggregateNames.set(name, prefix);
    }
    out.raw(first ? prefix.subarray(1) : prefix).value(value);
    first = false;
  }
}

/**
 * `JSON.stringify(windowView(w, contents))` into `out` (see `windowView`): the window's key, times, count
 * and aggregates, and with `contents` its most recent events and how many more it holds (`Truncated`).
 */
export function writeWindow(out: JsonBytesWriter, w: WindowResult, contents?: WindowContents): void {
  out.raw(KEY).string(w.key).raw(START).time(w.start).raw(END).time(w.end).raw(COUNT).number(w.count);
  out.raw(AGGREGATES).byte(0x7b);
  writeAggregates(out, w.aggregates);
  out.byte(0x7d);
  if (contents) {
    out.raw(EVENTS);
    const events = contents.events;
    for (let i = 0; i < events.length; i++) {
      if (i) out.byte(0x2c);
      const e = events[i];
      out.raw(EVENT_TIMESTAMP).time(e.timestamp).raw(EVENT_VALUE).value(e.value).byte(0x7d);
    }
    out.raw(TRUNCATED).number(contents.total - events.length);
  }
  out.byte(0x7d);
}

export { ascii };
