/** Conversion between FEEL values and host JSON-friendly JS values. */
import { parseDateTime } from './temporal';
import {
  Decimal,
  DaysTimeDuration,
  FeelContext,
  FeelDate,
  FeelFunction,
  FeelRange,
  FeelTime,
  FeelValue,
  YearsMonthsDuration,
  decimalToNumber,
  isContext,
  valueToString,
} from './values';

export interface ToJsOptions {
  /** 'number' (default): decimals become JS numbers; 'string': exact decimal strings when not exactly representable */
  decimals?: 'number' | 'string';
}

/** FEEL value -> plain JSON-friendly JS value. */
export function toJs(v: FeelValue | undefined, opts: ToJsOptions = {}, depth = 0): unknown {
  if (v === null || v === undefined) return null;
  if (depth > 200) return null;
  switch (typeof v) {
    case 'number':
    case 'string':
    case 'boolean':
      return v;
  }
  if (v instanceof Decimal) {
    const n = decimalToNumber(v);
    if (opts.decimals === 'string' && new Decimal(n).eq(v) === false) return v.toFixed();
    return n;
  }
  if (Array.isArray(v)) return v.map((e) => toJs(e, opts, depth + 1));
  if (isContext(v)) {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) o[k] = toJs(v[k], opts, depth + 1);
    return o;
  }
  if (v instanceof FeelFunction) return null;
  if (v instanceof FeelRange) return valueToString(v);
  return String(v);
}

/** Host JS value -> FEEL value (numbers stay JS numbers; Dates become UTC date and time; bigint -> Decimal). */
export function fromJs(v: unknown, depth = 0): FeelValue {
  if (v === null || v === undefined) return null;
  if (depth > 200) return null;
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'string':
    case 'boolean':
      return v;
    case 'bigint':
      return new Decimal(v.toString());
    case 'function':
      return null;
  }
  if (
    v instanceof Decimal ||
    v instanceof FeelDate ||
    v instanceof FeelTime ||
    v instanceof DaysTimeDuration ||
    v instanceof YearsMonthsDuration ||
    v instanceof FeelRange ||
    v instanceof FeelFunction
  )
    return v;
  if (v instanceof Date) {
    const dt = parseDateTime(v.toISOString().replace(/Z$/, 'Z'));
    return dt;
  }
  if (Array.isArray(v)) return v.map((e) => fromJs(e, depth + 1));
  if (typeof v === 'object') {
    const o: FeelContext = {};
    for (const k of Object.keys(v as object)) {
      const x = fromJs((v as Record<string, unknown>)[k], depth + 1);
      if (k === '__proto__')
        Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
      else o[k] = x;
    }
    return o;
  }
  return null;
}

/** Render a FEEL value as FEEL-like text. */
export function formatValue(v: FeelValue): string {
  return valueToString(v);
}
