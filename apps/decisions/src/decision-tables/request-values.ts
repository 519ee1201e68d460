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

/** The entity tag of a table at a version (`GET /{id}`'s `ETag`, compared with a PUT's `If-Match`). */
export function versionTag(version: number): string {
  return `"v${version}"`;
}

const VERSION_TAG = /^"v(\d{1,9})"$/;

/**
 * The versions an update may be based on: those `If-Match` names (strong tags `"v<version>"`; `*`:
 * any) and the body's `version`, both when both are sent (an empty list when they disagree: nothing
 * matches). Undefined: no precondition. A tag that is not ours (weak, another form) matches nothing.
 */
export function expectedVersions(ifMatch: string | undefined, bodyVersion: unknown): number[] | undefined {
  let expected: number[] | undefined;
  if (ifMatch !== undefined && ifMatch.trim() !== '*') {
    expected = ifMatch
      .split(',')
      .map((tag) => VERSION_TAG.exec(tag.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]));
  }
  if (typeof bodyVersion === 'number')
    expected = expected ? expected.filter((v) => v === bodyVersion) : [bodyVersion];
  return expected;
}
