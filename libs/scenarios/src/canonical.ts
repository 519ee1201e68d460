/** Canonical JSON (keys sorted, `undefined` dropped) and its hash: the identity of a scenario's input facts. */
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** sha256 of the canonical JSON, hex, first 32 characters */
export function hashFacts(facts: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(facts)).digest('hex').slice(0, 32);
}

export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
