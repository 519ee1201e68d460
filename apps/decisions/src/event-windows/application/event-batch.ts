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

const ISO_DATE_TIME = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const MAX_KEY_LENGTH = 256;

/** Epoch ms of an ISO 8601 date-time with a zone, years 0001–9999; NaN otherwise. */
export function isoTimestamp(value: unknown): number {
  if (typeof value !== 'string') return NaN;
  const m = ISO_DATE_TIME.exec(value);
  if (!m || m[1] === '0000') return NaN;
  return Date.parse(value);
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
