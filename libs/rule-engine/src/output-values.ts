/**
 * How the hit policies compare, order and add up output values. One hit-policy implementation
 * (hit-policy.ts) serves two callers whose values differ: the table API's compiled tables hold JSON
 * (JS numbers), `@arbiter/dmn` holds FEEL values (Decimals, dates, durations, contexts). Each caller
 * keeps the edge cases it has always had through its named semantics below.
 */
import { FeelValue, builtins, feelCompare, feelEquals, isNumber, toJs } from '@arbiter/feel';

export interface OutputValueSemantics {
  /** ANY (do the matched rules agree?) and output value lists (where does a value rank?) */
  equals(a: unknown, b: unknown): boolean;
  /** MIN / MAX: order of two values, null when they cannot be compared (the aggregate is then null) */
  compare(a: unknown, b: unknown): number | null;
  /** MIN / MAX: whether the first value must be orderable on its own (compared with itself) */
  readonly ordersFirstValue: boolean;
  /** SUM: a value SUM accepts (any other non-null value makes the sum null) */
  isNumber(v: unknown): boolean;
  /** SUM of the non-null values among the first `count` outputs (at least one; each passed `isNumber`) */
  sum(outputs: ArrayLike<unknown>, count: number): unknown;
  /** COUNT: every matched rule (`rules`) or only the rules whose output is not null (`values`) */
  readonly count: 'rules' | 'values';
}

/** FEEL `sum` of the non-null values among the first `count` outputs (JS numbers count as their decimal text). */
function feelSum(outputs: ArrayLike<unknown>, count: number): FeelValue {
  const numbers: FeelValue[] = [];
  for (let i = 0; i < count; i++)
    if (outputs[i] !== null && outputs[i] !== undefined) numbers.push(outputs[i] as FeelValue);
  return builtins.get('sum')!.call([numbers]);
}

/**
 * The table API (`compileDecisionTable`): deep JSON equality, MIN / MAX over numbers or strings of one
 * type (a lone value is its own minimum, whatever its type), SUM of JS numbers with FEEL's decimal
 * semantics (0.1 + 0.2 is 0.3, as FEEL `sum` gives), COUNT of non-null values.
 */
export const JSON_VALUES: OutputValueSemantics = {
  equals: jsonEquals,
  compare: (a, b) => {
    if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return null;
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  },
  ordersFirstValue: false,
  isNumber: (v) => typeof v === 'number',
  sum: (outputs, count) => {
    // integers whose sum stays a safe integer add exactly as doubles; anything else adds as decimals
    let total = 0;
    let integers = true;
    for (let i = 0; i < count; i++) {
      const v = outputs[i];
      if (v === null || v === undefined) continue;
      total += v as number;
      if (!Number.isInteger(v)) integers = false;
    }
    if (integers && Number.isSafeInteger(total)) return total;
    return toJs(feelSum(outputs, count));
  },
  count: 'values',
};

/**
 * DMN (`@arbiter/dmn`): FEEL equality (an output not equal to itself breaks ANY), FEEL ordering (dates,
 * durations, Decimals; a lone value must be orderable), SUM with FEEL's `sum`, COUNT of matched rules.
 */
export const FEEL_VALUES: OutputValueSemantics = {
  equals: (a, b) => feelEquals(a as FeelValue, b as FeelValue) === true,
  compare: (a, b) => feelCompare(a as FeelValue, b as FeelValue),
  ordersFirstValue: true,
  isNumber,
  sum: (outputs, count) => feelSum(outputs, count),
  count: 'rules',
};

/** Deep equality of JSON values (outputs are JSON); numbers compare as FEEL numbers. */
export function jsonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'number' && typeof b === 'number' ? feelEquals(a, b) === true : false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  for (const k of ka)
    if (!jsonEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}
