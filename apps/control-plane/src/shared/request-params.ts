import { AppError, FieldOptions, IntField } from '@arbiter/platform';

/**
 * Codes of the request parameters every feature reads the same way (a workflow name in a path, a
 * version number, a paging number), so a bad parameter is answered alike on every route.
 */
export const RequestParamErrors = {
  InvalidWorkflowName: 'INVALID_WORKFLOW_NAME',
  InvalidVersion: 'INVALID_VERSION',
} as const;

export const WORKFLOW_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The workflow name itself, or 400 `INVALID_WORKFLOW_NAME`. */
export function assertWorkflowName(name: string): string {
  if (!WORKFLOW_NAME.test(name))
    throw AppError.badRequest(
      RequestParamErrors.InvalidWorkflowName,
      `Workflow name '${name}' is invalid: 1-128 characters, letters, digits, '_', '.', '-'`,
    );
  return name;
}

/** A version number (1 … 999 999 999) from a path, query or body value, or 400 `INVALID_VERSION`. */
export function parseVersion(raw: unknown, field = 'version'): number {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1)
    throw AppError.badRequest(RequestParamErrors.InvalidVersion, `${field} must be a positive integer`, [
      { field, message: 'must be a positive integer' },
    ]);
  return Number(text);
}

/** An optional version: absent (undefined, null or empty) stays undefined. */
export function parseOptionalVersion(raw: unknown): number | undefined {
  return raw === undefined || raw === null || raw === '' ? undefined : parseVersion(raw);
}

/** A non-negative integer query parameter (`fallback` when absent), at most `max` when given. */
export function nonNegative(raw: unknown, name: string, fallback: number, max?: number): number {
  if (raw === undefined || raw === '') return fallback;
  const text = String(raw);
  if (!/^\d{1,9}$/.test(text))
    throw AppError.validation([{ field: name, message: `${name} must be a non-negative integer` }]);
  const value = Number(text);
  if (max !== undefined && value > max)
    throw AppError.validation([{ field: name, message: `${name} must not exceed ${max}` }]);
  return value;
}

/** The largest version number: every version the service assigns or reads is at most this. */
export const MAX_VERSION = 999_999_999;

/**
 * A version number in a request body: the same range and code as `parseVersion` (an integer 1 …
 * 999 999 999, else 400 `INVALID_VERSION`), documented as such in the OpenAPI schema.
 */
export function VersionField(options: FieldOptions = {}): PropertyDecorator {
  return IntField({ ...options, min: 1, max: MAX_VERSION, code: RequestParamErrors.InvalidVersion });
}
