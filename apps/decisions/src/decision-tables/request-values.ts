import { AppError } from '@arbiter/platform';
import { DecisionTableErrors as E } from './errors';

/**
 * Values that arrive from outside (path, query, body) and are read the same way by every route,
 * tool and use case of the decision-table feature.
 */

/** Parses a version path/query value: a positive integer, else 400 INVALID_VERSION. */
export function parseVersion(raw: unknown, name = 'version'): number {
  const text = String(raw ?? '').trim();
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1)
    throw AppError.badRequest(E.InvalidVersion, `${name} must be a positive integer`);
  return Number(text);
}

/** An optional `version` query value: absent is the latest version. */
export function optionalVersion(raw: unknown): number | undefined {
  return raw === undefined ? undefined : parseVersion(String(raw));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Table ids are UUIDs: anything else cannot name a table (and must not reach a uuid column). */
export function isTableId(id: string): boolean {
  return UUID.test(id);
}

/** A version comment: a non-blank string, else none. */
export function commentOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value : null;
}
