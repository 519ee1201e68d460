import { nonEmptyString, isObject } from '../document/checks';
import type { Problem } from '../document/problems';

/** Checks of node `config` values that several node kinds share. */

/** A required non-empty string; false (and a problem) when it is not one. */
export function requireText(
  config: Record<string, unknown>,
  key: string,
  at: string,
  problems: Problem[],
): boolean {
  if (nonEmptyString(config[key])) return true;
  problems.push({ path: `${at}.${key}`, message: 'required (non-empty string)' });
  return false;
}

/** An optional `{ field: "dotted.path" }` mapping. */
export function checkMapping(path: string, value: unknown, problems: Problem[]): void {
  if (value === undefined) return;
  if (!isObject(value) || Object.values(value).some((v) => typeof v !== 'string'))
    problems.push({ path, message: 'must be an object of strings' });
}

/** An optional integer ≥ 1. */
export function checkPositiveInteger(path: string, value: unknown, problems: Problem[]): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 1))
    problems.push({ path, message: 'must be a positive integer' });
}

/** JSON Schema of a mapping (`inputMapping`, `outputMapping`). */
export const MAPPING_SCHEMA = { type: 'object', additionalProperties: { type: 'string' } } as const;
