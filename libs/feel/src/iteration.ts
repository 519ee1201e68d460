/** The elements `for` and `some`/`every` iterate over: lists, single values, and bounded integer or date ranges. */
import { step, warn } from './evaluation-context';
import { FeelDate, FeelDateTime, FeelRange, isNumber, toDecimal, type FeelValue } from './values';

/** elements one numeric or date range may expand to */
export const MAX_LIST_SIZE = 5_000_000;

export function domainItems(v: FeelValue, end: FeelValue | undefined, hasEnd: boolean): FeelValue[] | null {
  if (hasEnd) return rangeItems(v, end ?? null, true, true);
  if (Array.isArray(v)) return v;
  if (v instanceof FeelRange) {
    if (v.start === undefined || v.end === undefined || v.start === null || v.end === null)
      return warn('cannot iterate over an unbounded range');
    return rangeItems(v.start, v.end, v.startIncluded, v.endIncluded);
  }
  if (v === null) return warn('cannot iterate over null');
  return [v];
}

function rangeItems(a: FeelValue, b: FeelValue, si: boolean, ei: boolean): FeelValue[] | null {
  if (isNumber(a) && isNumber(b)) {
    const x = toDecimal(a);
    const y = toDecimal(b);
    if (!x.isInteger() || !y.isInteger()) return warn('range iteration needs integer endpoints');
    const from = x.toNumber();
    const to = y.toNumber();
    if (Math.abs(to - from) > MAX_LIST_SIZE) return warn('range too large to iterate');
    const r: FeelValue[] = [];
    const dir = to >= from ? 1 : -1;
    for (let i = from; dir > 0 ? i <= to : i >= to; i += dir) {
      if ((i === from && !si) || (i === to && !ei)) continue;
      r.push(i);
    }
    step(r.length);
    return r;
  }
  if (
    a instanceof FeelDate &&
    b instanceof FeelDate &&
    !(a instanceof FeelDateTime) &&
    !(b instanceof FeelDateTime)
  ) {
    const from = a.epochDay;
    const to = b.epochDay;
    if (Math.abs(to - from) > MAX_LIST_SIZE) return warn('range too large to iterate');
    const dir = to >= from ? 1 : -1;
    const r: FeelValue[] = [];
    for (let i = from; dir > 0 ? i <= to : i >= to; i += dir) {
      if ((i === from && !si) || (i === to && !ei)) continue;
      r.push(FeelDate.fromEpochDay(i));
    }
    step(r.length);
    return r;
  }
  return warn('cannot iterate over this range');
}
