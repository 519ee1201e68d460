/** FEEL operators: arithmetic, membership, type tests. */
import { warn } from './evaluation-context';
import type { TypeNode } from './ast';
import {
  addDurationToDateTime,
  addDurationToTime,
  parseDate,
  parseDateTime,
  parseDuration,
  parseTime,
  subtractDateTimes,
  subtractTimes,
  toDateTime,
} from './temporal';
import {
  Decimal,
  DaysTimeDuration,
  FeelDate,
  FeelDateTime,
  FeelFunction,
  FeelRange,
  FeelTime,
  FeelValue,
  YearsMonthsDuration,
  feelCompare,
  feelEquals,
  isContext,
  isNumber,
  normNum,
  toDecimal,
  typeName,
  hasOwn,
} from './values';

const MAX_SAFE = 9007199254740991;

function dec(v: number | Decimal): Decimal {
  return typeof v === 'number' ? new Decimal(v) : v;
}
function finite(d: Decimal): number | Decimal | null {
  if (!d.isFinite()) return warn('numeric overflow');
  return normNum(d);
}

export function add(a: FeelValue | undefined, b: FeelValue | undefined): FeelValue {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a + b;
    if (r <= MAX_SAFE && r >= -MAX_SAFE) return r;
  }
  if (a == null || b == null) return null;
  if (isNumber(a))
    return isNumber(b) ? finite(dec(a).plus(dec(b))) : warn(`cannot add ${typeName(a)} and ${typeName(b)}`);
  if (typeof a === 'string')
    return typeof b === 'string' ? a + b : warn(`cannot add string and ${typeName(b)}`);
  return temporalAdd(a, b, 1);
}

export function sub(a: FeelValue | undefined, b: FeelValue | undefined): FeelValue {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a - b;
    if (r <= MAX_SAFE && r >= -MAX_SAFE) return r;
  }
  if (a == null || b == null) return null;
  if (isNumber(a))
    return isNumber(b) ? finite(dec(a).minus(dec(b))) : warn(`cannot subtract ${typeName(b)} from number`);
  if (
    a instanceof FeelDateTime ||
    (a instanceof FeelDate && !(b instanceof DaysTimeDuration || b instanceof YearsMonthsDuration))
  ) {
    if (b instanceof FeelDateTime || b instanceof FeelDate) {
      if (
        a instanceof FeelDate &&
        !(a instanceof FeelDateTime) &&
        b instanceof FeelDate &&
        !(b instanceof FeelDateTime)
      )
        return new DaysTimeDuration(new Decimal(a.epochDay - b.epochDay).times(86400));
      const x = a instanceof FeelDateTime ? a : toDateTime(a as FeelDate);
      const y = b instanceof FeelDateTime ? b : toDateTime(b);
      if (!(a instanceof FeelDateTime))
        return subtractDateTimes(new FeelDateTime(x.date, new FeelTime(0, 0, 0, 0, 0, null)), y);
      if (!(b instanceof FeelDateTime))
        return subtractDateTimes(x, new FeelDateTime(y.date, new FeelTime(0, 0, 0, 0, 0, null)));
      return (
        subtractDateTimes(x, y) ?? warn('cannot subtract a date and time with a time zone and one without')
      );
    }
  }
  if (a instanceof FeelTime && b instanceof FeelTime) return subtractTimes(a, b);
  return temporalAdd(a, b, -1);
}

function temporalAdd(a: FeelValue, b: FeelValue, sign: number): FeelValue {
  if (a instanceof DaysTimeDuration && b instanceof DaysTimeDuration)
    return new DaysTimeDuration(sign > 0 ? a.seconds.plus(b.seconds) : a.seconds.minus(b.seconds));
  if (a instanceof YearsMonthsDuration && b instanceof YearsMonthsDuration)
    return new YearsMonthsDuration(a.months + sign * b.months);
  const isDur = (v: FeelValue) => v instanceof DaysTimeDuration || v instanceof YearsMonthsDuration;
  if (sign > 0 && isDur(a) && !isDur(b)) return temporalAdd(b, a, 1);
  if (a instanceof FeelDateTime && isDur(b))
    return addDurationToDateTime(a, b as DaysTimeDuration, sign) ?? warn('date out of range');
  if (a instanceof FeelDate && isDur(b)) {
    const r = addDurationToDateTime(toDateTime(a), b as DaysTimeDuration, sign);
    return r ? r.date : warn('date out of range');
  }
  if (a instanceof FeelTime && b instanceof DaysTimeDuration) return addDurationToTime(a, b, sign);
  return warn(`cannot ${sign > 0 ? 'add' : 'subtract'} ${typeName(a)} and ${typeName(b)}`);
}

export function mul(a: FeelValue | undefined, b: FeelValue | undefined): FeelValue {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a * b;
    if (r <= MAX_SAFE && r >= -MAX_SAFE) return r || 0;
  }
  if (a == null || b == null) return null;
  if (isNumber(a)) {
    if (isNumber(b)) return finite(dec(a).times(dec(b)));
    if (b instanceof DaysTimeDuration || b instanceof YearsMonthsDuration) return mul(b, a);
    return warn(`cannot multiply number and ${typeName(b)}`);
  }
  if (a instanceof DaysTimeDuration && isNumber(b)) return new DaysTimeDuration(a.seconds.times(dec(b)));
  if (a instanceof YearsMonthsDuration && isNumber(b))
    return new YearsMonthsDuration(dec(b).times(a.months).trunc().toNumber() || 0);
  return warn(`cannot multiply ${typeName(a)} and ${typeName(b)}`);
}

export function div(a: FeelValue | undefined, b: FeelValue | undefined): FeelValue {
  if (a == null || b == null) return null;
  if (isNumber(a)) {
    if (!isNumber(b)) return warn(`cannot divide number by ${typeName(b)}`);
    if (
      typeof a === 'number' &&
      typeof b === 'number' &&
      Number.isInteger(a) &&
      Number.isInteger(b) &&
      b !== 0 &&
      a % b === 0
    )
      return a / b || 0;
    const db = dec(b);
    if (db.isZero()) return warn('division by zero');
    return finite(dec(a).div(db));
  }
  if (a instanceof DaysTimeDuration) {
    if (isNumber(b))
      return dec(b).isZero() ? warn('division by zero') : new DaysTimeDuration(a.seconds.div(dec(b)));
    if (b instanceof DaysTimeDuration)
      return b.seconds.isZero() ? warn('division by zero') : finite(a.seconds.div(b.seconds));
  }
  if (a instanceof YearsMonthsDuration) {
    if (isNumber(b))
      return dec(b).isZero()
        ? warn('division by zero')
        : new YearsMonthsDuration(new Decimal(a.months).div(dec(b)).trunc().toNumber() || 0);
    if (b instanceof YearsMonthsDuration)
      return b.months === 0 ? warn('division by zero') : finite(new Decimal(a.months).div(b.months));
  }
  return warn(`cannot divide ${typeName(a)} by ${typeName(b)}`);
}

export function pow(a: FeelValue | undefined, b: FeelValue | undefined): FeelValue {
  if (a == null || b == null) return null;
  if (!isNumber(a) || !isNumber(b)) return warn(`cannot raise ${typeName(a)} to ${typeName(b)}`);
  const db = dec(b);
  const da = dec(a);
  if (db.abs().gt(1e6) && db.isInteger() && !da.abs().eq(1) && !da.isZero())
    return warn('exponent too large');
  if (da.isZero() && db.isNegative()) return warn('division by zero');
  try {
    return finite(da.pow(db));
  } catch {
    return null;
  }
}

export function neg(a: FeelValue | undefined): FeelValue {
  if (a == null) return null;
  if (typeof a === 'number') return -a || 0;
  if (a instanceof Decimal) return normNum(a.neg());
  if (a instanceof DaysTimeDuration) return new DaysTimeDuration(a.seconds.neg());
  if (a instanceof YearsMonthsDuration) return new YearsMonthsDuration(-a.months || 0);
  return warn(`cannot negate ${typeName(a)}`);
}

// ---------------------------------------------------------------- comparisons

export function lt(a: FeelValue | undefined, b: FeelValue | undefined): boolean | null {
  if (typeof a === 'number' && typeof b === 'number') return a < b;
  const c = feelCompare(a, b);
  return c === null ? cmpNull(a, b) : c < 0;
}
export function le(a: FeelValue | undefined, b: FeelValue | undefined): boolean | null {
  if (typeof a === 'number' && typeof b === 'number') return a <= b;
  const c = feelCompare(a, b);
  return c === null ? cmpNull(a, b) : c <= 0;
}
export function gt(a: FeelValue | undefined, b: FeelValue | undefined): boolean | null {
  if (typeof a === 'number' && typeof b === 'number') return a > b;
  const c = feelCompare(a, b);
  return c === null ? cmpNull(a, b) : c > 0;
}
export function ge(a: FeelValue | undefined, b: FeelValue | undefined): boolean | null {
  if (typeof a === 'number' && typeof b === 'number') return a >= b;
  const c = feelCompare(a, b);
  return c === null ? cmpNull(a, b) : c >= 0;
}
function cmpNull(a: FeelValue | undefined, b: FeelValue | undefined): null {
  if (a != null && b != null) warn(`cannot compare ${typeName(a)} and ${typeName(b)}`);
  return null;
}
export function eq(a: FeelValue | undefined, b: FeelValue | undefined): boolean | null {
  if (a === b && (typeof a !== 'object' || a === null)) return true;
  return feelEquals(a, b);
}
export function ne(a: FeelValue | undefined, b: FeelValue | undefined): boolean | null {
  const r = eq(a, b);
  return r === null ? null : !r;
}

/** value in range */
/** The range `[start..end]` (`undefined`: no bound); null with a warning when the bounds are not comparable or out of order. */
export function makeRange(
  si: boolean,
  st: FeelValue | undefined,
  en: FeelValue | undefined,
  ei: boolean,
): FeelValue {
  if (st !== undefined && en !== undefined && st !== null && en !== null) {
    const c = feelCompare(st, en);
    if (c === null) return warn('range endpoints are not comparable');
    if (c > 0) return warn('range start is after its end');
  }
  return new FeelRange(si, st, en, ei);
}

export function inRange(v: FeelValue | undefined, r: FeelRange): boolean | null {
  if (v == null) return null;
  let okStart: boolean | null = true;
  if (r.start !== undefined) {
    if (r.start === null) return null;
    okStart = r.startIncluded ? ge(v, r.start) : gt(v, r.start);
  }
  if (okStart === false) return false;
  let okEnd: boolean | null = true;
  if (r.end !== undefined) {
    if (r.end === null) return null;
    okEnd = r.endIncluded ? le(v, r.end) : lt(v, r.end);
  }
  if (okEnd === false) return false;
  if (okStart === null || okEnd === null) return null;
  return true;
}

/** `v in x` where x is the value of a positive unary test expression (no `?`) */
export function matchesValue(v: FeelValue | undefined, x: FeelValue | undefined): boolean | null {
  if (x instanceof FeelRange) return inRange(v, x);
  if (Array.isArray(x)) {
    if (Array.isArray(v)) {
      const e = feelEquals(v, x);
      if (e === true) return true;
    }
    let sawNull = false;
    for (const e of x) {
      const r = e instanceof FeelRange ? inRange(v, e) : Array.isArray(e) ? feelEquals(v, e) : eq(v, e);
      if (r === true) return true;
      if (r === null) sawNull = true;
    }
    return sawNull && v !== null ? false : false;
  }
  if (x instanceof FeelFunction) {
    const r = x.invoke([v ?? null]);
    return typeof r === 'boolean' ? r : null;
  }
  if (typeof x === 'boolean' && typeof v !== 'boolean' && v != null) return x;
  return eq(v, x);
}

// ---------------------------------------------------------------- instance of

export function parseTypeString(s: string): TypeNode {
  // lightweight parser for type strings from item definitions; the full grammar lives in the FEEL parser
  return { kind: 'named', name: s.trim() };
}

const TYPE_ALIASES: Record<string, string> = {
  dayTimeDuration: 'days and time duration',
  yearMonthDuration: 'years and months duration',
  dateTime: 'date and time',
  'feel:number': 'number',
  'feel:string': 'string',
  'feel:boolean': 'boolean',
  'feel:date': 'date',
  'feel:time': 'time',
  'feel:date and time': 'date and time',
  'feel:days and time duration': 'days and time duration',
  'feel:years and months duration': 'years and months duration',
  'feel:context': 'context',
  'feel:Any': 'Any',
  'feel:list': 'list',
  Any: 'Any',
};
export function normalizeTypeName(n: string): string {
  return TYPE_ALIASES[n] ?? n;
}

export function isInstanceOf(
  v: FeelValue | undefined,
  t: TypeNode,
  resolve?: (name: string) => TypeNode | null,
): boolean {
  if (v === undefined) v = null;
  switch (t.kind) {
    case 'named': {
      const name = normalizeTypeName(t.name);
      if (name === 'Any') return v !== null;
      if (name === 'Null') return v === null;
      const tn = typeName(v);
      if (tn === name) return true;
      if (name === 'list' || name === 'context' || name === 'range' || name === 'function')
        return tn === name;
      if (resolve) {
        const r = resolve(t.name);
        if (r) return isInstanceOf(v, r, resolve);
      }
      return false;
    }
    case 'list':
      return Array.isArray(v) && v.every((e) => isInstanceOf(e, t.element, resolve) || e === null);
    case 'range':
      return (
        v instanceof FeelRange &&
        (v.start === undefined || v.start === null || isInstanceOf(v.start, t.element, resolve)) &&
        (v.end === undefined || v.end === null || isInstanceOf(v.end, t.element, resolve))
      );
    case 'context':
      return (
        isContext(v) &&
        t.entries.every(
          (e) =>
            hasOwn(v as object, e.name) &&
            ((v as Record<string, FeelValue>)[e.name] === null ||
              isInstanceOf((v as Record<string, FeelValue>)[e.name], e.type, resolve)),
        )
      );
    case 'function': {
      if (!(v instanceof FeelFunction)) return false;
      if (v.options.builtin) return true;
      if (v.params.length !== t.params.length) return false;
      for (let i = 0; i < t.params.length; i++) {
        const pt = v.params[i].type;
        // contravariant parameters: the declared parameter type must accept the tested type
        if (pt && !typeConforms(t.params[i], parseSimpleType(pt))) return false;
      }
      if (v.options.returnType && !typeConforms(parseSimpleType(v.options.returnType), t.result))
        return false;
      return true;
    }
  }
}

function parseSimpleType(s: string): TypeNode {
  return { kind: 'named', name: s };
}

/** does every value of type a conform to type b */
export function typeConforms(a: TypeNode, b: TypeNode): boolean {
  if (b.kind === 'named' && normalizeTypeName(b.name) === 'Any') return true;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'named' && b.kind === 'named')
    return normalizeTypeName(a.name) === normalizeTypeName(b.name);
  if ((a.kind === 'list' || a.kind === 'range') && (b.kind === 'list' || b.kind === 'range'))
    return typeConforms(a.element, b.element);
  if (a.kind === 'context' && b.kind === 'context')
    return b.entries.every((e) => a.entries.some((x) => x.name === e.name && typeConforms(x.type, e.type)));
  if (a.kind === 'function' && b.kind === 'function')
    return (
      a.params.length === b.params.length &&
      a.params.every((p, i) => typeConforms(b.params[i], p)) &&
      typeConforms(a.result, b.result)
    );
  return false;
}

// ---------------------------------------------------------------- @ literals

export function parseAtLiteral(s: string): FeelValue {
  if (/^-?P/.test(s)) return parseDuration(s);
  if (/^\d{2}:\d{2}/.test(s)) return parseTime(s);
  if (s.includes('T')) return parseDateTime(s);
  return parseDate(s);
}

export { toDecimal };
