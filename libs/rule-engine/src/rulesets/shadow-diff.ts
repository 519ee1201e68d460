/**
 * Shadow diff: compares the output facts of the active and the candidate version (spec 1, "Execution
 * audit entry": `shadowDiff.differences[{ field, activeValue, candidateValue, severity }]`).
 *
 * Walk: both outputs are walked field by field; nested plain objects are descended and their leaves
 * named by dotted paths (`pricing.discount`). Arrays are compared as whole values (deep equality) at
 * their own path, never per index: a reordered or resized list is one difference. A leaf is a value
 * that is not a non-empty plain object (an empty object `{}` is a leaf). Values are equal when they
 * are deeply equal JSON (`-0` equals `0`, key order does not matter). A key holding `undefined` counts
 * as absent.
 *
 * The spec's table (none: equal; medium: numeric differences of 5 % or less, or the output field counts
 * match; high: boolean logic differs or critical output fields are missing) settled as one rule per
 * difference, checked top-down, first match wins:
 *
 * | # | difference at a field                                                                 | severity |
 * |---|----------------------------------------------------------------------------------------|----------|
 * | 1 | the field is present in active and missing in candidate (any field, critical or not)   | high     |
 * | 2 | the field is critical (`criticalFields` names it or a parent of it) and differs at all | high     |
 * | 3 | a boolean is involved (either side is a boolean) and the values differ                 | high     |
 * | 4 | both sides are numbers and abs(candidate − active) ≤ tolerance × abs(active)            | medium   |
 * | 5 | anything else (numbers beyond the tolerance, strings, type changes, arrays, fields      | medium when the leaf-field counts of the two outputs are equal, else high |
 * |   | added in candidate)                                                                    |          |
 *
 * - tolerance: `numericTolerance`, default 0.05 (5 %), relative to the active value; with an active 0
 *   any other candidate number exceeds it (both 0 are equal and no difference at all).
 * - field counts: the number of leaf fields (as defined above) of each whole output.
 * - a field that is an object in active and not in candidate (or the other way round) is one difference
 *   at that path; when active had leaves there that candidate lacks, rule 1 applies (fields missing).
 * - overall `severity`: `none` without differences, else the highest of the differences.
 */
import type { Facts } from './types';

export type ShadowSeverity = 'none' | 'medium' | 'high';

export interface ShadowDifference {
  field: string;
  activeValue: unknown;
  candidateValue: unknown;
  severity: 'medium' | 'high';
}

export interface ShadowDiff {
  severity: ShadowSeverity;
  differences: ShadowDifference[];
}

export interface ShadowDiffOptions {
  /** Output fields whose any difference (or absence) is `high`; a name covers its nested fields. */
  criticalFields?: string[];
  /** Relative numeric tolerance of `medium` differences (default 0.05). */
  numericTolerance?: number;
}

export const DEFAULT_NUMERIC_TOLERANCE = 0.05;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A non-empty plain object: walked into rather than compared as a leaf. */
function isBranch(v: unknown): v is Record<string, unknown> {
  if (!isPlainObject(v)) return false;
  for (const k in v) if (v[k] !== undefined) return true;
  return false;
}

/** Deep equality of JSON values. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let na = 0;
  for (const k in ra) {
    if (ra[k] === undefined) continue;
    na++;
    if (!deepEqual(ra[k], rb[k])) return false;
  }
  let nb = 0;
  for (const k in rb) if (rb[k] !== undefined) nb++;
  return na === nb;
}

/** Leaf fields of an output (see the file comment). */
export function countLeafFields(value: unknown): number {
  if (!isBranch(value)) return 1;
  let n = 0;
  for (const k in value) if (value[k] !== undefined) n += countLeafFields(value[k]);
  return n;
}

/** Leaf fields of a whole output object (`{}` has none). */
export function countOutputFields(output: Record<string, unknown>): number {
  let n = 0;
  for (const k in output) if (output[k] !== undefined) n += countLeafFields(output[k]);
  return n;
}

interface Walk {
  critical: string[];
  tolerance: number;
  countsMatch: boolean;
  out: ShadowDifference[];
}

function isCritical(path: string, critical: string[]): boolean {
  for (const c of critical) if (path === c || (path.startsWith(c) && path[c.length] === '.')) return true;
  return false;
}

function severityOf(path: string, active: unknown, candidate: unknown, w: Walk): 'medium' | 'high' {
  if (active !== undefined && candidate === undefined) return 'high'; // 1: missing in candidate
  if (isBranch(active) && !isBranch(candidate)) return 'high'; // 1: active's nested fields missing
  if (w.critical.length && isCritical(path, w.critical)) return 'high'; // 2
  if (typeof active === 'boolean' || typeof candidate === 'boolean') return 'high'; // 3
  if (typeof active === 'number' && typeof candidate === 'number') {
    if (Math.abs(candidate - active) <= w.tolerance * Math.abs(active)) return 'medium'; // 4
  }
  return w.countsMatch ? 'medium' : 'high'; // 5
}

function walk(
  prefix: string,
  active: Record<string, unknown>,
  candidate: Record<string, unknown>,
  w: Walk,
): void {
  for (const key in active) {
    const a = active[key];
    if (a === undefined) continue;
    visit(prefix ? `${prefix}.${key}` : key, a, candidate[key], w);
  }
  for (const key in candidate) {
    const c = candidate[key];
    if (c === undefined || active[key] !== undefined) continue;
    visit(prefix ? `${prefix}.${key}` : key, undefined, c, w);
  }
}

function visit(path: string, a: unknown, c: unknown, w: Walk): void {
  if (isBranch(a) && isBranch(c)) return walk(path, a, c, w);
  if (deepEqual(a, c)) return;
  w.out.push({
    field: path,
    activeValue: a === undefined ? null : a,
    candidateValue: c === undefined ? null : c,
    severity: severityOf(path, a, c, w),
  });
}

/**
 * Compares the candidate's output facts with the active version's, field by field (rules in the file
 * comment). Pure; never throws on JSON input.
 */
export function diffOutputs(active: Facts, candidate: Facts, options: ShadowDiffOptions = {}): ShadowDiff {
  const a = isPlainObject(active) ? active : {};
  const c = isPlainObject(candidate) ? candidate : {};
  const tolerance = options.numericTolerance ?? DEFAULT_NUMERIC_TOLERANCE;
  const w: Walk = {
    critical: options.criticalFields ?? [],
    tolerance: Number.isFinite(tolerance) && tolerance >= 0 ? tolerance : DEFAULT_NUMERIC_TOLERANCE,
    countsMatch: countOutputFields(a) === countOutputFields(c),
    out: [],
  };
  walk('', a, c, w);
  let severity: ShadowSeverity = 'none';
  for (const d of w.out) {
    if (d.severity === 'high') {
      severity = 'high';
      break;
    }
    severity = 'medium';
  }
  return { severity, differences: w.out };
}
