/**
 * C# value semantics for the lambda compiler, over JSON values (null, number, string, boolean, array,
 * object) plus `Date` for DateTime. Every function throws a plain `Error` whose message says what went
 * wrong; the compiler adds the position.
 *
 * Choices where JSON and C# differ:
 * - numbers are JS doubles (no C# integer division, no decimal exactness: `7 / 2` is 3.5);
 * - ISO-8601 strings act as DateTime where a DateTime is expected (comparison with a DateTime, date
 *   methods), as Newtonsoft's JSON reader makes them DateTime in RulesEngine;
 * - a missing property of an object is null (JObject semantics), a property of null is an error.
 */

export type Value = unknown;

export function typeName(v: Value): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
  }
  if (v instanceof Date) return 'DateTime';
  if (Array.isArray(v)) return 'collection';
  return 'object';
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** A DateTime from a Date or an ISO-8601 string; null otherwise. */
export function asDate(v: Value): Date | null {
  if (v instanceof Date) return v;
  if (typeof v === 'string' && ISO_DATE.test(v)) {
    const ms = Date.parse(v.length > 10 && v[10] === ' ' ? v.slice(0, 10) + 'T' + v.slice(11) : v);
    return Number.isNaN(ms) ? null : new Date(ms);
  }
  return null;
}

function dateFor(v: Value, what: string): Date {
  const d = asDate(v);
  if (!d) throw new Error(`${what} needs a DateTime, got ${typeName(v)}`);
  return d;
}

/** C# `==`: null equals only null; values of different types cannot be compared (C# binder error). */
export function equals(a: Value, b: Value, op: string): boolean {
  if (a === null || a === undefined) return b === null || b === undefined;
  if (b === null || b === undefined) return false;
  const ta = typeof a;
  if (ta === typeof b && ta !== 'object') return a === b;
  if (ta === 'object' && typeof b === 'object') {
    if (a instanceof Date || b instanceof Date) return sameDate(a, b, op);
    return a === b; // reference equality, as C# for objects
  }
  if (a instanceof Date || b instanceof Date) return sameDate(a, b, op);
  throw new Error(`operator '${op}' cannot be applied to ${typeName(a)} and ${typeName(b)}`);
}

function sameDate(a: Value, b: Value, op: string): boolean {
  const da = asDate(a);
  const db = asDate(b);
  if (!da || !db) throw new Error(`operator '${op}' cannot be applied to ${typeName(a)} and ${typeName(b)}`);
  return da.getTime() === db.getTime();
}

/** `object.Equals`: like `==` but false (not an error) for values of different types. */
export function looseEquals(a: Value, b: Value): boolean {
  if (a === null || a === undefined) return b === null || b === undefined;
  if (b === null || b === undefined) return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b;
}

/**
 * Ordering for `< <= > >=` and CompareTo: negative, zero or positive. Numbers numerically, strings
 * ordinally (UTF-16 code units, like C#'s ordinal comparison), DateTimes by instant.
 */
export function compare(a: Value, b: Value, op: string): number {
  const ta = typeof a;
  if (ta === 'number' && typeof b === 'number') return (a as number) - (b as number);
  if (ta === 'string' && typeof b === 'string') return (a as string) < b ? -1 : (a as string) > b ? 1 : 0;
  if (a instanceof Date || b instanceof Date) {
    const da = asDate(a);
    const db = asDate(b);
    if (da && db) return da.getTime() - db.getTime();
  }
  throw new Error(`operator '${op}' cannot be applied to ${typeName(a)} and ${typeName(b)}`);
}

/** `a < b` etc.: false when either side is null (C# lifted comparison). */
export function relational(op: '<' | '<=' | '>' | '>=', a: Value, b: Value): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return false;
  const c = compare(a, b, op);
  if (Number.isNaN(c)) return false;
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

/** C# `ToString()` of a value (`True`/`False` for booleans, `""` for null in concatenation). */
export function toCSharpString(v: Value): string {
  if (v === null || v === undefined) return '';
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'True' : 'False';
    case 'number':
      return String(v);
  }
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

/** `+ - * / %` */
export function arithmetic(op: '+' | '-' | '*' | '/' | '%', a: Value, b: Value): Value {
  if (op === '+' && (typeof a === 'string' || typeof b === 'string'))
    return toCSharpString(a) + toCSharpString(b);
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        if (b === 0) throw new Error('attempted to divide by zero');
        return a / b;
      default:
        if (b === 0) throw new Error('attempted to divide by zero');
        return a % b;
    }
  }
  const na = a === null || a === undefined;
  const nb = b === null || b === undefined;
  // lifted operators: null with a number (or null) is null
  if ((na || typeof a === 'number') && (nb || typeof b === 'number')) return null;
  throw new Error(`operator '${op}' cannot be applied to ${typeName(a)} and ${typeName(b)}`);
}

/**
 * Banker's rounding (MidpointRounding.ToEven), C#'s default for Math.Round and Convert.ToInt32, on the
 * number's shortest decimal form (so `2.345` rounds to 2.34 as the C# decimal would, although the double
 * 2.345 × 100 is 234.50000000000003).
 */
export function roundHalfEven(x: number, digits = 0): number {
  if (!Number.isFinite(x) || !Number.isInteger(digits) || digits < 0 || digits > 15) return x;
  const text = Math.abs(x).toString();
  if (text.includes('e')) return x; // very large or tiny: nothing sensible to round in decimal
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length <= digits) return x;
  const kept = fraction.slice(0, digits);
  const first = fraction.charCodeAt(digits) - 48;
  const restNonZero = /[1-9]/.test(fraction.slice(digits + 1));
  const last = (digits > 0 ? kept : whole).charCodeAt((digits > 0 ? kept : whole).length - 1) - 48;
  const up = first > 5 || (first === 5 && (restNonZero || last % 2 === 1));
  let magnitude = Number(digits > 0 ? `${whole}.${kept}` : whole);
  if (up) magnitude = Number((magnitude + Math.pow(10, -digits)).toFixed(digits));
  return x < 0 ? -magnitude : magnitude;
}

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
const NUMBER_TEXT = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

function parseNumberText(s: string, integer: boolean): number {
  if (!(integer ? INTEGER_TEXT : NUMBER_TEXT).test(s))
    throw new Error(`input string '${s}' was not in a correct format`);
  return Number(s);
}

const INT_RANGES: Record<string, [number, number]> = {
  ToInt16: [-32768, 32767],
  ToInt32: [-2147483648, 2147483647],
  ToInt64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int: [-2147483648, 2147483647],
  long: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

function toInteger(v: Value, kind: string): number {
  let n: number;
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') n = roundHalfEven(v);
  else if (typeof v === 'boolean') n = v ? 1 : 0;
  else if (typeof v === 'string') n = parseNumberText(v, true);
  else throw new Error(`cannot convert ${typeName(v)} to an integer`);
  const [min, max] = INT_RANGES[kind];
  if (!(n >= min && n <= max)) throw new Error(`value ${n} was either too large or too small for ${kind}`);
  return n;
}

function toNumber(v: Value): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') return parseNumberText(v, false);
  throw new Error(`cannot convert ${typeName(v)} to a number`);
}

function toBoolean(v: Value): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
    throw new Error(`string '${v}' was not recognized as a valid Boolean`);
  }
  throw new Error(`cannot convert ${typeName(v)} to bool`);
}

function requireString(v: Value, what: string): string {
  if (typeof v !== 'string') throw new Error(`${what} needs a string, got ${typeName(v)}`);
  return v;
}
function requireNumber(v: Value, what: string): number {
  if (typeof v !== 'number') throw new Error(`${what} needs a number, got ${typeName(v)}`);
  return v;
}

/** Static members: `string.IsNullOrEmpty(x)`, `Convert.ToInt32(x)`, `Math.Round(x, 2)`, `DateTime.Now`, … */
export function callStatic(type: string, member: string, args: Value[]): Value {
  const a = args[0];
  switch (type) {
    case 'string':
      switch (member) {
        case 'IsNullOrEmpty':
          return a === null || a === undefined || requireString(a, 'string.IsNullOrEmpty') === '';
        case 'IsNullOrWhiteSpace':
          return a === null || a === undefined || requireString(a, 'string.IsNullOrWhiteSpace').trim() === '';
        case 'Equals':
          return looseEquals(a, args[1]);
        case 'Concat':
          return args.map(toCSharpString).join('');
        case 'Empty':
          return '';
      }
      break;
    case 'Convert':
      switch (member) {
        case 'ToInt16':
        case 'ToInt32':
        case 'ToInt64':
          return toInteger(a, member);
        case 'ToDecimal':
        case 'ToDouble':
        case 'ToSingle':
          return toNumber(a);
        case 'ToString':
          return toCSharpString(a);
        case 'ToBoolean':
          return toBoolean(a);
      }
      break;
    case 'Math': {
      const what = `Math.${member}`;
      switch (member) {
        case 'Abs':
          return Math.abs(requireNumber(a, what));
        case 'Min':
          return Math.min(requireNumber(a, what), requireNumber(args[1], what));
        case 'Max':
          return Math.max(requireNumber(a, what), requireNumber(args[1], what));
        case 'Round':
          return roundHalfEven(requireNumber(a, what), args.length > 1 ? requireNumber(args[1], what) : 0);
        case 'Floor':
          return Math.floor(requireNumber(a, what));
        case 'Ceiling':
          return Math.ceil(requireNumber(a, what));
        case 'Truncate':
          return Math.trunc(requireNumber(a, what));
        case 'Pow':
          return Math.pow(requireNumber(a, what), requireNumber(args[1], what));
        case 'Sqrt':
          return Math.sqrt(requireNumber(a, what));
      }
      break;
    }
    case 'DateTime':
      switch (member) {
        case 'Now':
        case 'UtcNow':
          return new Date();
        case 'Today': {
          const d = new Date();
          return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
        }
        case 'Parse': {
          const d = asDate(requireString(a, 'DateTime.Parse'));
          if (!d) throw new Error(`string '${String(a)}' was not recognized as a valid DateTime`);
          return d;
        }
      }
      break;
    case 'int':
    case 'long':
      return toInteger(parseNumberText(requireString(a, `${type}.Parse`), true), type);
    case 'decimal':
    case 'double':
      return parseNumberText(requireString(a, `${type}.Parse`), false);
  }
  throw new Error(`unknown member '${type}.${member}'`);
}

const DATE_MEMBERS = new Set(['Year', 'Month', 'Day', 'Hour', 'Minute', 'Second', 'Date', 'DayOfWeek']);

/**
 * Members that are not JSON properties: `Length`/`Count` of strings and collections, `HasValue`/`Value`
 * of nullables, date parts (UTC). Called when the receiver has no own property of that name.
 */
export function specialMember(target: Value, name: string): Value {
  if (name === 'HasValue') return target !== null && target !== undefined;
  if (target === null || target === undefined) {
    if (name === 'Value') throw new Error('nullable object must have a value');
    throw new Error(`null reference: cannot read '${name}' of null`);
  }
  if (name === 'Value') return target;
  if (typeof target === 'string') {
    if (name === 'Length') return target.length;
    if (DATE_MEMBERS.has(name) && asDate(target)) return dateMember(asDate(target) as Date, name);
  } else if (Array.isArray(target)) {
    if (name === 'Length' || name === 'Count') return target.length;
  } else if (target instanceof Date) {
    if (DATE_MEMBERS.has(name)) return dateMember(target, name);
  } else if (typeof target === 'object') return null; // a property the object does not have
  throw new Error(`${typeName(target)} has no member '${name}'`);
}

function dateMember(d: Date, name: string): Value {
  switch (name) {
    case 'Year':
      return d.getUTCFullYear();
    case 'Month':
      return d.getUTCMonth() + 1;
    case 'Day':
      return d.getUTCDate();
    case 'Hour':
      return d.getUTCHours();
    case 'Minute':
      return d.getUTCMinutes();
    case 'Second':
      return d.getUTCSeconds();
    case 'DayOfWeek':
      return d.getUTCDay();
    default:
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  }
}

const hasOwn = Object.prototype.hasOwnProperty;

/** `target[index]`: collections by integer position, strings by character, objects by key. */
export function indexValue(target: Value, index: Value): Value {
  if (Array.isArray(target) || typeof target === 'string') {
    if (typeof index !== 'number' || !Number.isInteger(index))
      throw new Error(`${typeName(target)} index must be an integer, got ${typeName(index)}`);
    if (index < 0 || index >= target.length)
      throw new Error(`index ${index} is out of range (count ${target.length})`);
    return target[index];
  }
  if (target !== null && typeof target === 'object' && !(target instanceof Date)) {
    if (typeof index !== 'string') throw new Error(`object key must be a string, got ${typeName(index)}`);
    return hasOwn.call(target, index) ? (target as Record<string, Value>)[index] : null;
  }
  throw new Error(`cannot index ${typeName(target)}`);
}

/** Instance methods that take no lambda (LINQ with lambdas is compiled in compiler.ts). */
export function callMethod(target: Value, method: string, args: Value[]): Value {
  const a = args[0];
  const what = `'${method}'`;
  switch (method) {
    case 'Contains':
      if (typeof target === 'string') {
        if (a === null || a === undefined) throw new Error(`argument of 'Contains' cannot be null`);
        return target.includes(requireString(a, what));
      }
      if (Array.isArray(target)) return target.some((e) => looseEquals(e, a));
      throw new Error(`${what} needs a string or a collection, got ${typeName(target)}`);
    case 'StartsWith':
      return requireString(target, what).startsWith(requireString(a, `argument of ${what}`));
    case 'EndsWith':
      return requireString(target, what).endsWith(requireString(a, `argument of ${what}`));
    case 'ToLower':
    case 'ToLowerInvariant':
      return requireString(target, what).toLowerCase();
    case 'ToUpper':
    case 'ToUpperInvariant':
      return requireString(target, what).toUpperCase();
    case 'Trim':
      return requireString(target, what).trim();
    case 'TrimStart':
      return requireString(target, what).trimStart();
    case 'TrimEnd':
      return requireString(target, what).trimEnd();
    case 'Substring': {
      const s = requireString(target, what);
      const start = requireNumber(a, `argument of ${what}`);
      const length = args.length > 1 ? requireNumber(args[1], `argument of ${what}`) : s.length - start;
      if (start < 0 || start > s.length || length < 0 || start + length > s.length)
        throw new Error(
          `'Substring'(${start}${args.length > 1 ? `, ${length}` : ''}) is out of range of a string of length ${s.length}`,
        );
      return s.substr(start, length);
    }
    case 'IndexOf':
      if (typeof target === 'string') return target.indexOf(requireString(a, `argument of ${what}`));
      if (Array.isArray(target)) return target.findIndex((e) => looseEquals(e, a));
      throw new Error(`${what} needs a string or a collection, got ${typeName(target)}`);
    case 'Replace': {
      const s = requireString(target, what);
      const from = requireString(a, `argument of ${what}`);
      if (from === '') throw new Error(`'Replace': string to replace cannot be empty`);
      const to =
        args[1] === null || args[1] === undefined ? '' : requireString(args[1], `argument of ${what}`);
      return s.split(from).join(to);
    }
    case 'Equals':
      return looseEquals(target, a);
    case 'ToString':
      return toCSharpString(target);
    case 'CompareTo': {
      if (a === null || a === undefined) return 1;
      const c = compare(target, a, 'CompareTo');
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    case 'GetValueOrDefault':
      return target === null || target === undefined ? (args.length ? a : null) : target;
    case 'ContainsKey':
      if (target === null || typeof target !== 'object' || Array.isArray(target) || target instanceof Date)
        throw new Error(`${what} needs an object, got ${typeName(target)}`);
      return hasOwn.call(target, requireString(a, `argument of ${what}`));
    case 'Distinct':
      return [...new Set(requireCollection(target, method))];
    case 'ToList':
    case 'ToArray':
      return requireCollection(target, method);
    case 'AddDays':
    case 'AddHours':
    case 'AddMinutes':
    case 'AddSeconds':
      return addTime(dateFor(target, what), method, requireNumber(a, `argument of ${what}`));
    case 'AddMonths':
    case 'AddYears': {
      const d = new Date(dateFor(target, what).getTime());
      const n = requireNumber(a, `argument of ${what}`);
      if (method === 'AddMonths') d.setUTCMonth(d.getUTCMonth() + n);
      else d.setUTCFullYear(d.getUTCFullYear() + n);
      return d;
    }
  }
  throw new Error(`unknown method '${method}'`);
}

const MS: Record<string, number> = {
  AddDays: 86_400_000,
  AddHours: 3_600_000,
  AddMinutes: 60_000,
  AddSeconds: 1000,
};
function addTime(d: Date, method: string, n: number): Date {
  return new Date(d.getTime() + n * MS[method]);
}

export function requireCollection(v: Value, method: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`'${method}' needs a collection, got ${typeName(v)}`);
  return v;
}
