import { AppError } from '@arbiter/platform';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EventWindowErrors as E } from '../errors';
import type { EventWindowConfigEntity } from '../persistence/entities';

/** A checked batch: parallel arrays (no object per event beyond the request's own). */
export interface EventBatch {
  keys: string[];
  timestamps: number[];
  /** What is aggregated: `Value`, or the field at `ValuePath` inside it. */
  values: unknown[];
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const MAX_KEY_LENGTH = 256;

/** Epoch ms of an ISO 8601 date-time with a zone, years 0001–9999, a day its month has; NaN otherwise. */
export function isoTimestamp(value: unknown): number {
  if (typeof value !== 'string') return NaN;
  if (value.length === 24 || value.length === 20) {
    const t = utcTimestamp(value);
    if (t === t) return t;
  }
  const m = ISO_DATE_TIME.exec(value);
  if (!m || m[1] === '0000') return NaN;
  // a day the month does not have (02-30, 04-31) is refused, not rolled over into the next month as Date.parse does
  if (Number(m[3]) > daysInMonth(Number(m[1]), Number(m[2]))) return NaN;
  return Date.parse(value);
}

/** The day `utcTimestamp` read last (year × 10,000 + month × 100 + day) and its epoch ms. */
let lastDay = -1;
let lastDayMs = 0;

/**
 * The common form, `2026-11-28T05:00:00.000Z` or `2026-11-28T05:00:00Z` (what `toISOString` writes), read
 * without a regular expression or `Date.parse` (they were most of reading a batch of 10,000 events): a
 * real date of the years 0100–9999, hours 00–23; NaN for anything else, which `isoTimestamp` then reads
 * the general way (so every text reads as before).
 */
function utcTimestamp(v: string): number {
  const n = v.length;
  if (
    v.charCodeAt(4) !== 0x2d || // -
    v.charCodeAt(7) !== 0x2d ||
    v.charCodeAt(10) !== 0x54 || // T
    v.charCodeAt(13) !== 0x3a || // :
    v.charCodeAt(16) !== 0x3a ||
    v.charCodeAt(n - 1) !== 0x5a || // Z
    (n === 24 && v.charCodeAt(19) !== 0x2e) // .
  )
    return NaN;
  const year = digits(v, 0, 4);
  const month = digits(v, 5, 2);
  const date = digits(v, 8, 2);
  const hours = digits(v, 11, 2);
  const minutes = digits(v, 14, 2);
  const seconds = digits(v, 17, 2);
  const ms = n === 24 ? digits(v, 20, 3) : 0;
  // NaN (not digits) fails every comparison below
  if (!(year >= 100 && month >= 1 && month <= 12 && date >= 1 && hours <= 23 && minutes <= 59)) return NaN;
  if (!(seconds <= 59 && ms >= 0)) return NaN;
  const day = year * 10_000 + month * 100 + date;
  if (day !== lastDay) {
    if (date > 28 && date > daysInMonth(year, month)) return NaN; // no such day: refused the general way too
    lastDayMs = Date.UTC(year, month - 1, date);
    lastDay = day;
  }
  return lastDayMs + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + ms;
}

/** The number the `count` decimal digits of `v` from `at` write; NaN if one is not a digit. */
function digits(v: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = v.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function at(value: unknown, path: string[] | null): unknown {
  if (!path) return value;
  let current = value;
  for (const part of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** 413 past `maxEvents`, before any event is looked at. */
function checkSize(events: unknown[], maxEvents: number) {
  if (events.length > maxEvents)
    throw new AppError(
      413,
      E.BatchTooLarge,
      `The batch holds ${events.length} events; at most ${maxEvents} (EventWindows:MaxBatchEvents)`,
    );
}

function emptyBatch(n: number): EventBatch {
  return { keys: new Array<string>(n), timestamps: new Array<number>(n), values: new Array<unknown>(n) };
}

/**
 * Checks a batch in one pass: 413 past `maxEvents` (before looking at any event), 400 naming
 * `Events[i].<field>` for the first bad event.
 */
export function readBatch(events: unknown[], config: EventWindowConfigEntity, maxEvents: number): EventBatch {
  checkSize(events, maxEvents);
  const path = config.valuePath ? config.valuePath.split('.') : null;
  const batch = emptyBatch(events.length);
  readEvents(events, 0, events.length, config, path, batch);
  return batch;
}

/** Events checked between two looks at the clock (`readBatchSliced`). */
const CHECK_EVERY = 1024;

/**
 * `readBatch` for a request that may wait: the same checks and errors, the event loop handed back every
 * `sliceMs` (a batch of 50,000 events is not read in one go).
 */
export async function readBatchSliced(
  events: unknown[],
  config: EventWindowConfigEntity,
  maxEvents: number,
  sliceMs: number,
): Promise<EventBatch> {
  checkSize(events, maxEvents);
  const path = config.valuePath ? config.valuePath.split('.') : null;
  const batch = emptyBatch(events.length);
  let sliceStart = performance.now();
  for (let from = 0; from < events.length; from += CHECK_EVERY) {
    if (performance.now() - sliceStart > sliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
    readEvents(events, from, Math.min(from + CHECK_EVERY, events.length), config, path, batch);
  }
  return batch;
}

function readEvents(
  events: unknown[],
  from: number,
  to: number,
  config: EventWindowConfigEntity,
  path: string[] | null,
  { keys, timestamps, values }: EventBatch,
) {
  for (let i = from; i < to; i++) {
    const e = events[i] as Record<string, unknown>;
    if (e === null || typeof e !== 'object' || Array.isArray(e))
      throw AppError.badRequest(E.InvalidEvent, `Events[${i}] must be an object { Key, Timestamp, Value }`, [
        { field: `Events[${i}]`, message: 'must be an object' },
      ]);
    const t = isoTimestamp(e.Timestamp);
    if (!Number.isFinite(t))
      throw AppError.badRequest(
        E.InvalidTimestamp,
        `Events[${i}].Timestamp must be an ISO 8601 date-time with a zone (2026-11-28T05:00:00Z)`,
        [
          {
            field: `Events[${i}].Timestamp`,
            message: 'not an ISO 8601 date-time with a zone, years 0001-9999',
          },
        ],
      );
    let key = e.Key;
    if (key === undefined || key === null) key = at(e.Value, [config.correlationKey]);
    if (typeof key === 'number' && Number.isFinite(key)) key = String(key);
    if (typeof key !== 'string' || key === '' || key.length > MAX_KEY_LENGTH)
      throw AppError.badRequest(
        E.InvalidEvent,
        `Events[${i}].Key must be a text of 1-${MAX_KEY_LENGTH} characters (or Value.${config.correlationKey})`,
        [{ field: `Events[${i}].Key`, message: 'missing or not a text of 1-256 characters' }],
      );
    keys[i] = key;
    timestamps[i] = t;
    values[i] = at(e.Value, path);
  }
}
