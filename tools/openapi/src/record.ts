import type { BreakingChange } from './breaking-changes';
import { readJson } from './documents';

/** A breaking change a release ships on purpose: an entry of `docs/openapi/breaking-changes.json`. */
export interface RecordedBreakingChange {
  service: string;
  /** `METHOD /path`, as the detector prints it. */
  operation: string;
  /** The change, word for word as the detector prints it. */
  change: string;
  /** The product version that ships the change (the documents' `info.version`). */
  version: string;
  /** Why the break is worth it, and what clients do about it (the release notes say the same). */
  reason: string;
}

const FIELDS = ['service', 'operation', 'change', 'version', 'reason'] as const;

/** Reads and checks the record: an array of entries whose five fields are non-empty strings. */
export function readRecord(path: string): RecordedBreakingChange[] {
  const record: unknown = readJson(path);
  if (!Array.isArray(record)) throw new Error(`${path}: expected an array of recorded breaking changes`);
  return record.map((entry, index) => {
    for (const field of FIELDS) {
      if (typeof entry?.[field] !== 'string' || entry[field].trim() === '') {
        throw new Error(`${path}: entry ${index} needs a non-empty string '${field}'`);
      }
    }
    const extra = Object.keys(entry).filter((key) => !(FIELDS as readonly string[]).includes(key));
    if (extra.length) throw new Error(`${path}: entry ${index} has unknown fields ${extra.join(', ')}`);
    return entry as RecordedBreakingChange;
  });
}

/**
 * The changes of `service` that no entry of the record covers for `version`. An entry covers a change
 * when service, operation and change text are equal and it names the version about to ship: an entry of
 * an older release does not excuse the same break again.
 */
export function unrecordedChanges(
  service: string,
  version: string,
  changes: BreakingChange[],
  record: RecordedBreakingChange[],
): BreakingChange[] {
  return changes.filter(
    (change) =>
      !record.some(
        (entry) =>
          entry.service === service &&
          entry.version === version &&
          entry.operation === change.operation &&
          entry.change === change.change,
      ),
  );
}

/** How a change is written in the record (what a failing test tells the author to add). */
export function recordEntryFor(service: string, version: string, change: BreakingChange) {
  return {
    service,
    operation: change.operation,
    change: change.change,
    version,
    reason: '<why, and what clients do>',
  };
}
