import { AppError } from '@arbiter/platform';
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

/**
 * Checks a batch in one pass: 413 past `maxEvents` (before looking at any event), 400 naming
 * `Events[i].<field>` for the first bad event.
 */
export function readBatch(events: unknown[], config: EventWindowConfigEntity, maxEvents: number): EventBatch {
  if (events.length > maxEvents)
    throw new AppError(
      413,
      E.BatchTooLarge,
      `The batch holds ${events.length} events; at most ${maxEvents} (EventWindows:MaxBatchEvents)`,
    );
  const path = config.valuePath ? config.valuePath.split('.') : null;
  const keys: string[] = new Array(events.length);
  const timestamps: number[] = new Array(events.length);
  const values: unknown[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) {
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
  return { keys, timestamps, values };
}
