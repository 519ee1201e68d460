/**
 * FEEL value model.
 *
 * - null                      -> null
 * - number                    -> JS `number` (only when it is an exact integer / a host double) or `Decimal`
 *                                (34 significant digits, ROUND_HALF_EVEN: IEEE 754 DECIMAL128 semantics)
 * - string, boolean           -> JS string / boolean
 * - date, time, date and time -> FeelDate, FeelTime, FeelDateTime
 * - days and time duration    -> DaysTimeDuration (exact seconds as Decimal)
 * - years and months duration -> YearsMonthsDuration (whole months)
 * - list                      -> JS array
 * - context                   -> plain JS object (own enumerable keys, insertion order)
 * - range                     -> FeelRange
 * - function                  -> FeelFunction
 */
import DecimalJs from 'decimal.js';

export const Decimal = DecimalJs.clone({
  precision: 34,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  toExpNeg: -40,
  toExpPos: 40,
  minE: -6176,
  maxE: 6144,
});
export type Decimal = InstanceType<typeof Decimal>;

export type FeelValue =
  | null
  | boolean
  | string
  | number
  | Decimal
  | FeelDate
  | FeelTime
  | FeelDateTime
  | DaysTimeDuration
  | YearsMonthsDuration
  | FeelRange
  | FeelFunction
  | FeelValue[]
  | FeelContext;

export interface FeelContext {
  [key: string]: FeelValue;
}

// ---------------------------------------------------------------- numbers

export function isNumber(v: unknown): v is number | Decimal {
  return typeof v === 'number' || v instanceof Decimal;
}
export function toDecimal(v: number | Decimal): Decimal {
  return typeof v === 'number' ? new Decimal(v) : v;
}
/** Normalise a Decimal back to a JS number when that is exact and an integer (keeps the fast path hot). */
export function normNum(d: Decimal): number | Decimal {
  if (!d.isFinite()) return d;
  if (d.isInteger() && d.abs().lte(9007199254740991)) return decimalToNumber(d);
  return d;
}
/** Powers of ten a double holds exactly (10^22 is the largest), as literals: `10 ** k` may round. */
const EXACT_POWERS_OF_TEN = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
  1e20, 1e21, 1e22,
];
/** decimal.js keeps the coefficient in base 10^7 words (`d`), the exponent of its first digit (`e`) and the sign (`s`). */
interface DecimalParts {
  d: number[] | null;
  e: number;
  s: number;
}

/**
 * The double nearest to a Decimal, as `Decimal#toNumber` gives it (which formats the decimal and parses the
 * text back), without the text when the coefficient is at most 14 digits long and the scale at most 22: the
 * coefficient and the power of ten are then exact doubles, and one multiplication or division rounds
 * correctly (Clinger's fast path). The results of everyday arithmetic (`income * 0.2`) take it.
 */
export function decimalToNumber(x: Decimal): number {
  const { d, e, s } = x as unknown as DecimalParts;
  if (d !== null && d.length <= 2) {
    const first = d[0];
    let firstDigits = 1; // the first word has no leading zeros
    for (let power = 10; first >= power; power *= 10) firstDigits++;
    const coefficient = d.length === 1 ? first : first * 1e7 + d[1];
    const scale = e - firstDigits + 1 - (d.length - 1) * 7;
    if (scale >= 0 && scale <= 22) return s * (coefficient * EXACT_POWERS_OF_TEN[scale]);
    if (scale < 0 && scale >= -22) return s * (coefficient / EXACT_POWERS_OF_TEN[-scale]);
  }
  return x.toNumber();
}

export function numToString(v: number | Decimal): string {
  if (typeof v === 'number') return Number.isInteger(v) ? v.toFixed(0) : new Decimal(v).toFixed();
  return v.toFixed();
}

// ---------------------------------------------------------------- temporal helpers

export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
export function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [m <= 2 ? y + 1 : y, m, d];
}
export function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}
export function daysInMonth(y: number, m: number): number {
  return [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}
function pad(n: number, w = 2): string {
  const s = String(Math.abs(n)).padStart(w, '0');
  return n < 0 ? '-' + s : s;
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();
export function isValidZone(zone: string): boolean {
  try {
    zoneFormatter(zone);
    return true;
  } catch {
    return false;
  }
}
function zoneFormatter(zone: string): Intl.DateTimeFormat {
  let f = zoneFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    if (zoneFormatters.size > 500) zoneFormatters.clear();
    zoneFormatters.set(zone, f);
  }
  return f;
}
/** Offset in seconds of an IANA zone at the given UTC epoch second. */
export function zoneOffsetAt(zone: string, epochSec: number): number {
  const clamped = Math.max(Math.min(epochSec, 8.64e12), -8.64e12);
  const f = zoneFormatter(zone);
  const parts = f.formatToParts(new Date(Math.floor(clamped) * 1000));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  let year = get('year');
  const era = parts.find((p) => p.type === 'era')?.value;
  if (era === 'BC' || era === 'B') year = 1 - year;
  const local =
    daysFromCivil(year, get('month'), get('day')) * 86400 +
    get('hour') * 3600 +
    get('minute') * 60 +
    get('second');
  return local - Math.floor(clamped);
}
/** Offset in seconds of a zone for a local wall-clock time. */
export function zoneOffsetForLocal(zone: string, localEpochSec: number): number {
  let off = zoneOffsetAt(zone, localEpochSec);
  off = zoneOffsetAt(zone, localEpochSec - off);
  return off;
}

export function formatOffset(off: number): string {
  if (off === 0) return 'Z';
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  const s = a % 60;
  return sign + pad(h) + ':' + pad(m) + (s ? ':' + pad(s) : '');
}
function formatSeconds(sec: number, nanos: number): string {
  let s = pad(sec);
  if (nanos) s += '.' + String(nanos).padStart(9, '0').replace(/0+$/, '');
  return s;
}

// ---------------------------------------------------------------- temporal classes

export class FeelDate {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
  ) {}
  get epochDay(): number {
    return daysFromCivil(this.year, this.month, this.day);
  }
  toString(): string {
    const y = this.year;
    const ys = y < 0 ? '-' + String(-y).padStart(4, '0') : String(y).padStart(4, '0');
    return `${ys}-${pad(this.month)}-${pad(this.day)}`;
  }
  static fromEpochDay(d: number): FeelDate {
    const [y, m, dd] = civilFromDays(d);
    return new FeelDate(y, m, dd);
  }
}

export class FeelTime {
  constructor(
    readonly hour: number,
    readonly minute: number,
    readonly second: number,
    readonly nanos: number,
    /** fixed offset in seconds, or null (local time or zone id) */
    readonly offset: number | null,
    readonly zone: string | null,
  ) {}
  get secondOfDay(): number {
    return this.hour * 3600 + this.minute * 60 + this.second;
  }
  /** offset used for comparisons: the fixed offset, or the zone's offset today */
  effectiveOffset(): number | null {
    if (this.offset !== null) return this.offset;
    if (this.zone) return zoneOffsetAt(this.zone, Math.floor(Date.now() / 1000));
    return null;
  }
  toString(): string {
    let s = `${pad(this.hour)}:${pad(this.minute)}:${formatSeconds(this.second, this.nanos)}`;
    if (this.zone) s += '@' + this.zone;
    else if (this.offset !== null) s += formatOffset(this.offset);
    return s;
  }
}

export class FeelDateTime {
  constructor(
    readonly date: FeelDate,
    readonly time: FeelTime,
  ) {}
  /** offset in seconds for this local date-time, or null if local */
  effectiveOffset(): number | null {
    if (this.time.offset !== null) return this.time.offset;
    if (this.time.zone) return zoneOffsetForLocal(this.time.zone, this.localEpochSecond());
    return null;
  }
  localEpochSecond(): number {
    return this.date.epochDay * 86400 + this.time.secondOfDay;
  }
  /** exact UTC instant (epoch seconds as bigint, nanos) - local time treated as UTC when there is no zone */
  instant(): [bigint, number] {
    const off = this.effectiveOffset() ?? 0;
    return [BigInt(this.date.epochDay) * 86400n + BigInt(this.time.secondOfDay - off), this.time.nanos];
  }
  hasZone(): boolean {
    return this.time.offset !== null || this.time.zone !== null;
  }
  toString(): string {
    return this.date.toString() + 'T' + this.time.toString();
  }
}

export class DaysTimeDuration {
  constructor(readonly seconds: Decimal) {}
  toString(): string {
    const s = this.seconds;
    if (s.isZero()) return 'PT0S';
    const neg = s.isNegative();
    const a = s.abs();
    const total = a.floor();
    const frac = a.minus(total);
    const days = total.divToInt(86400);
    let rest = total.minus(days.times(86400)).toNumber();
    const h = Math.floor(rest / 3600);
    rest -= h * 3600;
    const m = Math.floor(rest / 60);
    const sec = rest - m * 60;
    let out = (neg ? '-' : '') + 'P';
    if (!days.isZero()) out += days.toFixed() + 'D';
    if (h || m || sec || !frac.isZero()) {
      out += 'T';
      if (h) out += h + 'H';
      if (m) out += m + 'M';
      if (sec || !frac.isZero()) out += frac.plus(sec).toFixed() + 'S';
    }
    return out;
  }
}

export class YearsMonthsDuration {
  constructor(readonly months: number) {}
  toString(): string {
    const neg = this.months < 0;
    const a = Math.abs(this.months);
    const y = Math.floor(a / 12);
    const m = a % 12;
    if (a === 0) return 'P0M';
    return (neg ? '-' : '') + 'P' + (y ? y + 'Y' : '') + (m ? m + 'M' : '');
  }
}

export class FeelRange {
  constructor(
    readonly startIncluded: boolean,
    readonly start: FeelValue | undefined,
    readonly end: FeelValue | undefined,
    readonly endIncluded: boolean,
    /** '=' for the DMN 1.5 unary-test value `=x` (not the same as [x..x]) */
    readonly op?: '=',
  ) {}
  toString(): string {
    if (this.op === '=') return '=' + valueToString(this.start);
    const s = this.start === undefined ? '' : valueToString(this.start);
    const e = this.end === undefined ? '' : valueToString(this.end);
    if (this.start === undefined) return (this.endIncluded ? '<=' : '<') + e;
    if (this.end === undefined) return (this.startIncluded ? '>=' : '>') + s;
    return (this.startIncluded ? '[' : '(') + s + '..' + e + (this.endIncluded ? ']' : ')');
  }
}

export interface FeelParam {
  name: string;
  type?: string;
}
export class FeelFunction {
  constructor(
    readonly params: FeelParam[],
    /** invoked with positional arguments already bound to params (missing -> undefined) */
    readonly invoke: (args: FeelValue[]) => FeelValue,
    readonly options: { name?: string; variadic?: boolean; builtin?: boolean; returnType?: string } = {},
  ) {}
  get name(): string | undefined {
    return this.options.name;
  }
}

// ---------------------------------------------------------------- type inspection

export function isContext(v: unknown): v is FeelContext {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

export function typeName(v: FeelValue | undefined): string {
  if (v === null || v === undefined) return 'Null';
  switch (typeof v) {
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
  }
  if (v instanceof Decimal) return 'number';
  if (Array.isArray(v)) return 'list';
  if (v instanceof FeelDate) return 'date';
  if (v instanceof FeelDateTime) return 'date and time';
  if (v instanceof FeelTime) return 'time';
  if (v instanceof DaysTimeDuration) return 'days and time duration';
  if (v instanceof YearsMonthsDuration) return 'years and months duration';
  if (v instanceof FeelRange) return 'range';
  if (v instanceof FeelFunction) return 'function';
  if (isContext(v)) return 'context';
  return 'Any';
}

export function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** Set a context entry as an own key, `__proto__` included (a plain key in FEEL, never the prototype). */
export function defineKey(o: FeelContext, k: string, v: FeelValue): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

// ---------------------------------------------------------------- equality & ordering

/** temporal values compare at millisecond precision (as the DMN TCK expects) */
function ms(nanos: number): number {
  return Math.floor(nanos / 1e6);
}

/** FEEL `=`: true/false, or null when the operands are not comparable. */
export function feelEquals(a: FeelValue | undefined, b: FeelValue | undefined): boolean | null {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === null || b === null) return a === b;
  const ta = typeof a;
  if (ta === 'number' && typeof b === 'number') return a === b;
  if (ta === 'string' || ta === 'boolean') return typeof b === ta ? a === b : null;
  if (isNumber(a)) return isNumber(b) ? toDecimal(a).eq(toDecimal(b)) : null;
  if (a instanceof FeelDate) {
    if (!(b instanceof FeelDate) || b instanceof FeelDateTime) return null;
    return a.year === b.year && a.month === b.month && a.day === b.day;
  }
  if (a instanceof FeelDateTime) {
    if (!(b instanceof FeelDateTime)) return null;
    if (a.hasZone() !== b.hasZone()) return false;
    const [s1, n1] = a.instant();
    const [s2, n2] = b.instant();
    return s1 === s2 && ms(n1) === ms(n2);
  }
  if (a instanceof FeelTime) {
    if (!(b instanceof FeelTime)) return null;
    const o1 = a.effectiveOffset();
    const o2 = b.effectiveOffset();
    if ((o1 === null) !== (o2 === null)) return false;
    return a.secondOfDay - (o1 ?? 0) === b.secondOfDay - (o2 ?? 0) && ms(a.nanos) === ms(b.nanos);
  }
  if (a instanceof DaysTimeDuration) return b instanceof DaysTimeDuration ? a.seconds.eq(b.seconds) : null;
  if (a instanceof YearsMonthsDuration)
    return b instanceof YearsMonthsDuration ? a.months === b.months : null;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return null;
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const e = feelEquals(a[i], b[i]);
      if (e !== true) return e;
    }
    return true;
  }
  if (a instanceof FeelRange) {
    if (!(b instanceof FeelRange)) return null;
    return (
      a.op === b.op &&
      a.startIncluded === b.startIncluded &&
      a.endIncluded === b.endIncluded &&
      (a.start === undefined
        ? b.start === undefined
        : b.start !== undefined && feelEquals(a.start, b.start) === true) &&
      (a.end === undefined ? b.end === undefined : b.end !== undefined && feelEquals(a.end, b.end) === true)
    );
  }
  if (a instanceof FeelFunction) return b instanceof FeelFunction ? a === b : null;
  if (isContext(a)) {
    if (!isContext(b)) return null;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (const k of ka) {
      if (!hasOwn(b, k)) return false;
      const e = feelEquals(a[k], b[k]);
      if (e !== true) return e;
    }
    return true;
  }
  return null;
}

/** Ordering: negative/0/positive, or null when not comparable. */
export function feelCompare(a: FeelValue | undefined, b: FeelValue | undefined): number | null {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (a === null || b === null || a === undefined || b === undefined) return null;
  if (isNumber(a)) return isNumber(b) ? toDecimal(a).cmp(toDecimal(b)) : null;
  if (typeof a === 'string') return typeof b === 'string' ? (a < b ? -1 : a > b ? 1 : 0) : null;
  if (a instanceof FeelDateTime) {
    if (!(b instanceof FeelDateTime)) return null;
    if (a.hasZone() !== b.hasZone()) return null;
    const [s1, n1] = a.instant();
    const [s2, n2] = b.instant();
    return s1 < s2 ? -1 : s1 > s2 ? 1 : ms(n1) - ms(n2);
  }
  if (a instanceof FeelDate) {
    if (!(b instanceof FeelDate) || b instanceof FeelDateTime) return null;
    return a.epochDay - b.epochDay;
  }
  if (a instanceof FeelTime) {
    if (!(b instanceof FeelTime)) return null;
    const o1 = a.effectiveOffset();
    const o2 = b.effectiveOffset();
    if ((o1 === null) !== (o2 === null)) return null;
    const d = a.secondOfDay - (o1 ?? 0) - (b.secondOfDay - (o2 ?? 0));
    return d !== 0 ? d : ms(a.nanos) - ms(b.nanos);
  }
  if (a instanceof DaysTimeDuration) return b instanceof DaysTimeDuration ? a.seconds.cmp(b.seconds) : null;
  if (a instanceof YearsMonthsDuration) return b instanceof YearsMonthsDuration ? a.months - b.months : null;
  return null;
}

// ---------------------------------------------------------------- printing

export function valueToString(v: FeelValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (isNumber(v)) return numToString(v);
  if (Array.isArray(v)) return '[' + v.map(valueToString).join(', ') + ']';
  if (isContext(v))
    return (
      '{' +
      Object.keys(v)
        .map((k) => (/^[A-Za-z_][\w ]*$/.test(k) ? k : JSON.stringify(k)) + ': ' + valueToString(v[k]))
        .join(', ') +
      '}'
    );
  if (v instanceof FeelFunction) return 'function(' + v.params.map((p) => p.name).join(', ') + ')';
  return String(v);
}
