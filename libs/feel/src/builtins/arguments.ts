/** Argument checks and result normalisation shared by the built-in categories. */
import { warn } from '../evaluation-context';
import { Decimal, FeelDate, FeelDateTime, normNum, type FeelValue } from '../values';
import type { V } from './builtin-function';

export function isStr(v: V): v is string {
  return typeof v === 'string';
}
export function num(v: V): Decimal | null {
  return typeof v === 'number' ? new Decimal(v) : v instanceof Decimal ? v : null;
}
export function int(v: V): number | null {
  const d = num(v);
  if (!d || !d.isInteger()) return null;
  return d.toNumber();
}
export function isDate(v: V): v is FeelDate {
  return v instanceof FeelDate && !(v instanceof FeelDateTime);
}
export function bad(fn: string, why = 'invalid arguments'): null {
  return warn(`${fn}: ${why}`);
}
export function chars(s: string): string[] {
  return Array.from(s);
}
/** varargs-or-list */
export function listArg(args: V[]): FeelValue[] | null {
  if (args.length === 1 && Array.isArray(args[0])) return args[0];
  if (args.length === 0) return null;
  return args.map((a) => (a === undefined ? null : a));
}
export function out(v: Decimal): FeelValue {
  if (!v.isFinite()) return warn('numeric overflow');
  return normNum(v);
}
