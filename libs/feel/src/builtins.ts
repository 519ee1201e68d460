/** The FEEL built-in function library (DMN 1.5). */
import { MAX_REGEX_INPUT, xpathRegex } from './regex';
import { ge, gt, le, lt, eq, add, div, matchesValue } from './ops';
import {
  makeDate,
  makeTime,
  monthsBetween,
  nowDateTime,
  parseDate,
  parseDateTime,
  parseDuration,
  parseTime,
} from './temporal';
import {
  Decimal,
  DaysTimeDuration,
  FeelContext,
  FeelDate,
  FeelDateTime,
  FeelFunction,
  FeelRange,
  FeelTime,
  FeelValue,
  YearsMonthsDuration,
  feelCompare,
  feelEquals,
  hasOwn,
  isContext,
  isNumber,
  normNum,
  numToString,
  toDecimal,
  typeName,
  valueToString,
  warn,
} from './values';

type V = FeelValue | undefined;
interface Sig {
  params: string[];
  /** number of required params (default: all) */
  required?: number;
  variadic?: boolean;
  impl: (...args: V[]) => FeelValue;
}

export const MAX_LIST_SIZE = 5_000_000;

/** Built-in function with one or more signatures; chooses a signature by arity or by argument names. */
export class BuiltinFunction extends FeelFunction {
  constructor(
    name: string,
    readonly sigs: Sig[],
  ) {
    super(
      sigs[0].params.map((p) => ({ name: p })),
      (args) => this.call(args),
      { name, builtin: true, variadic: sigs.some((s) => s.variadic) },
    );
  }
  call(args: V[]): FeelValue {
    const n = args.length;
    for (const s of this.sigs) {
      const req = s.required ?? s.params.length;
      if (n >= req && (s.variadic || n <= s.params.length)) return s.impl(...unwrapScalars(s, args));
    }
    return warn(`${this.name}: no signature accepts ${n} argument(s)`);
  }
  callNamed(named: Record<string, V>): FeelValue {
    const keys = Object.keys(named);
    const exact = this.sigs.filter(
      (s) => s.params.slice(0, keys.length).join('\u0000') === keys.join('\u0000'),
    );
    for (const s of [...exact, ...this.sigs]) {
      if (!keys.every((k) => s.params.includes(k))) continue;
      let last = -1;
      s.params.forEach((p, i) => {
        if (hasOwn(named, p)) last = i;
      });
      const args: V[] = [];
      last = Math.max(last, (s.required ?? s.params.length) - 1);
      for (let i = 0; i <= last; i++) args.push(hasOwn(named, s.params[i]) ? named[s.params[i]] : null);
      if (s.variadic && last === s.params.length - 1) {
        const rest = named[s.params[last]];
        args.pop();
        if (Array.isArray(rest)) args.push(...rest);
        else args.push(rest);
      }
      return s.impl(...unwrapScalars(s, args));
    }
    return warn(`${this.name}: no signature accepts parameters ${keys.join(', ')}`);
  }
}

const SCALAR_PARAMS = new Set([
  'string',
  'match',
  'input',
  'pattern',
  'replacement',
  'flags',
  'delimiter',
  'n',
  'number',
  'dividend',
  'divisor',
  'scale',
  'start position',
  'length',
  'year',
  'month',
  'day',
  'hour',
  'minute',
  'second',
  'offset',
  'grouping separator',
  'decimal separator',
  'position',
  'negand',
]);
function unwrapScalars(s: Sig, args: V[]): V[] {
  let out = args;
  for (let i = 0; i < args.length && i < s.params.length; i++) {
    const a = args[i];
    if (
      Array.isArray(a) &&
      a.length === 1 &&
      SCALAR_PARAMS.has(s.params[i]) &&
      !(s.variadic && i === s.params.length - 1)
    ) {
      if (out === args) out = [...args];
      out[i] = a[0];
    }
  }
  return out;
}

export const builtins = new Map<string, BuiltinFunction>();
function def(name: string, ...sigs: Sig[]): void {
  builtins.set(name, new BuiltinFunction(name, sigs));
}
function sig(
  params: string[],
  impl: (...args: V[]) => FeelValue,
  required?: number,
  variadic?: boolean,
): Sig {
  return { params, impl, required, variadic };
}

// ---------------------------------------------------------------- helpers
function isStr(v: V): v is string {
  return typeof v === 'string';
}
function num(v: V): Decimal | null {
  return typeof v === 'number' ? new Decimal(v) : v instanceof Decimal ? v : null;
}
function int(v: V): number | null {
  const d = num(v);
  if (!d || !d.isInteger()) return null;
  return d.toNumber();
}
function isDate(v: V): v is FeelDate {
  return v instanceof FeelDate && !(v instanceof FeelDateTime);
}
function bad(fn: string, why = 'invalid arguments'): null {
  return warn(`${fn}: ${why}`);
}
function chars(s: string): string[] {
  return Array.from(s);
}
/** varargs-or-list */
function listArg(args: V[]): FeelValue[] | null {
  if (args.length === 1 && Array.isArray(args[0])) return args[0];
  if (args.length === 0) return null;
  return args.map((a) => (a === undefined ? null : a));
}
function out(v: Decimal): FeelValue {
  if (!v.isFinite()) return warn('numeric overflow');
  return normNum(v);
}

// ---------------------------------------------------------------- conversion
def(
  'date',
  sig(['from'], (from) => {
    if (isStr(from)) return parseDate(from) ?? bad('date', `invalid date '${from}'`);
    if (from instanceof FeelDateTime) return from.date;
    if (isDate(from)) return from;
    return bad('date');
  }),
  sig(['year', 'month', 'day'], (y, m, d) => {
    const yy = int(y),
      mm = int(m),
      dd = int(d);
    if (yy === null || mm === null || dd === null) return bad('date');
    return makeDate(yy, mm, dd) ?? bad('date', 'invalid date');
  }),
);

def(
  'date and time',
  sig(['from'], (from) => {
    if (isStr(from)) return parseDateTime(from) ?? bad('date and time', `invalid date and time '${from}'`);
    if (from instanceof FeelDateTime) return from;
    if (isDate(from)) return new FeelDateTime(from, new FeelTime(0, 0, 0, 0, 0, null));
    return bad('date and time');
  }),
  sig(['date', 'time'], (d, t) => {
    if (!(d instanceof FeelDate || d instanceof FeelDateTime) || !(t instanceof FeelTime))
      return bad('date and time');
    return new FeelDateTime(d instanceof FeelDateTime ? d.date : d, t);
  }),
);

def(
  'time',
  sig(['from'], (from) => {
    if (isStr(from)) return parseTime(from) ?? bad('time', `invalid time '${from}'`);
    if (from instanceof FeelDateTime) return from.time;
    if (from instanceof FeelTime) return from;
    if (isDate(from)) return new FeelTime(0, 0, 0, 0, 0, null);
    return bad('time');
  }),
  sig(
    ['hour', 'minute', 'second', 'offset'],
    (h, m, s, off) => {
      const hh = int(h),
        mm = int(m),
        ss = num(s);
      if (hh === null || mm === null || !ss) return bad('time');
      let offset: number | null = null;
      if (off !== undefined && off !== null) {
        if (!(off instanceof DaysTimeDuration)) return bad('time', 'offset must be a days and time duration');
        offset = off.seconds.toNumber();
      }
      const whole = ss.floor();
      const nanos = ss.minus(whole).times(1e9).round().toNumber();
      return makeTime(hh, mm, whole.toNumber(), nanos, offset, null) ?? bad('time', 'invalid time');
    },
    3,
  ),
);

def(
  'number',
  sig(
    ['from', 'grouping separator', 'decimal separator'],
    (from, g, d) => {
      if (!isStr(from)) return bad('number');
      if (g !== undefined && g !== null && ![' ', ',', '.'].includes(g as string))
        return bad('number', 'invalid grouping separator');
      if (d !== undefined && d !== null && !['.', ','].includes(d as string))
        return bad('number', 'invalid decimal separator');
      if (g != null && g === d) return bad('number', 'separators must differ');
      let s = from;
      if (g != null) s = s.split(g as string).join('');
      if (d != null) s = s.split(d as string).join('.');
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s))
        return bad('number', `cannot convert '${from}'`);
      return out(new Decimal(s));
    },
    1,
  ),
);

def(
  'string',
  sig(['from'], (from) => {
    if (from === null || from === undefined) return null;
    if (isStr(from)) return from;
    if (isNumber(from)) return numToString(from);
    if (Array.isArray(from) || isContext(from)) return valueToString(from);
    return String(from);
  }),
);

def(
  'duration',
  sig(['from'], (from) => {
    if (!isStr(from)) return bad('duration');
    return parseDuration(from) ?? bad('duration', `invalid duration '${from}'`);
  }),
);

def(
  'years and months duration',
  sig(['from', 'to'], (from, to) => {
    const okT = (x: V) => x instanceof FeelDate || x instanceof FeelDateTime;
    if (!okT(from) || !okT(to)) return bad('years and months duration');
    return new YearsMonthsDuration(monthsBetween(from, to));
  }),
);

def(
  'not',
  sig(['negand'], (b) => (typeof b === 'boolean' ? !b : null)),
);

def(
  'range',
  sig(['from'], (from) => {
    if (!isStr(from)) return bad('range');
    return rangeFromString ? rangeFromString(from) : null;
  }),
);

export let rangeFromString: ((s: string) => FeelValue) | null = null;
export function setRangeParser(f: (s: string) => FeelValue): void {
  rangeFromString = f;
}

// ---------------------------------------------------------------- strings
def(
  'substring',
  sig(
    ['string', 'start position', 'length'],
    (s, start, len) => {
      if (!isStr(s)) return bad('substring');
      const st = num(start);
      if (!st) return bad('substring');
      const cs = chars(s);
      let i = st.round().toNumber();
      if (i === 0) return bad('substring', 'start position 0');
      if (i < 0) i = cs.length + i + 1;
      if (i < 1) i = 1;
      if (len === undefined || len === null) return cs.slice(i - 1).join('');
      const l = num(len);
      if (!l || l.isNegative()) return bad('substring');
      return cs.slice(i - 1, i - 1 + l.trunc().toNumber()).join('');
    },
    2,
  ),
);
def(
  'string length',
  sig(['string'], (s) => (isStr(s) ? chars(s).length : bad('string length'))),
);
def(
  'upper case',
  sig(['string'], (s) => (isStr(s) ? s.toUpperCase() : bad('upper case'))),
);
def(
  'lower case',
  sig(['string'], (s) => (isStr(s) ? s.toLowerCase() : bad('lower case'))),
);
def(
  'substring before',
  sig(['string', 'match'], (s, m) => {
    if (!isStr(s) || !isStr(m)) return bad('substring before');
    const i = s.indexOf(m);
    return i < 0 ? '' : s.slice(0, i);
  }),
);
def(
  'substring after',
  sig(['string', 'match'], (s, m) => {
    if (!isStr(s) || !isStr(m)) return bad('substring after');
    const i = s.indexOf(m);
    return i < 0 ? '' : s.slice(i + m.length);
  }),
);
def(
  'contains',
  sig(['string', 'match'], (s, m) => (isStr(s) && isStr(m) ? s.includes(m) : bad('contains'))),
);
def(
  'starts with',
  sig(['string', 'match'], (s, m) => (isStr(s) && isStr(m) ? s.startsWith(m) : bad('starts with'))),
);
def(
  'ends with',
  sig(['string', 'match'], (s, m) => (isStr(s) && isStr(m) ? s.endsWith(m) : bad('ends with'))),
);
def(
  'matches',
  sig(
    ['input', 'pattern', 'flags'],
    (input, pattern, flags) => {
      if (!isStr(input) || !isStr(pattern) || (flags != null && !isStr(flags))) return bad('matches');
      if (input.length > MAX_REGEX_INPUT) return bad('matches', 'input too long');
      const re = xpathRegex(pattern, flags as string | null);
      if (typeof re === 'string') return bad('matches', re);
      return re.test(input);
    },
    2,
  ),
);
def(
  'replace',
  sig(
    ['input', 'pattern', 'replacement', 'flags'],
    (input, pattern, repl, flags) => {
      if (!isStr(input) || !isStr(pattern) || !isStr(repl) || (flags != null && !isStr(flags)))
        return bad('replace');
      if (input.length > MAX_REGEX_INPUT) return bad('replace', 'input too long');
      const re = xpathRegex(pattern, flags as string | null, true);
      if (typeof re === 'string') return bad('replace', re);
      if (re.test('')) return bad('replace', 'pattern matches the empty string');
      re.lastIndex = 0;
      // XPath replacement: $N groups, \$ and \\ escapes
      let jsRepl = '';
      for (let i = 0; i < repl.length; i++) {
        const c = repl[i];
        if (c === '\\') {
          const nx = repl[i + 1];
          if (nx === '$') jsRepl += '$$';
          else if (nx === '\\') jsRepl += '\\';
          else return bad('replace', 'invalid replacement');
          i++;
        } else if (c === '$') {
          if (!/[0-9]/.test(repl[i + 1] ?? '')) return bad('replace', 'invalid replacement');
          if (repl[i + 1] === '0') {
            jsRepl += '$&';
            i++;
          } else jsRepl += '$';
        } else jsRepl += c;
      }
      return input.replace(re, jsRepl);
    },
    3,
  ),
);
def(
  'split',
  sig(['string', 'delimiter'], (s, d) => {
    if (!isStr(s) || !isStr(d)) return bad('split');
    if (s.length > MAX_REGEX_INPUT) return bad('split', 'input too long');
    const re = xpathRegex(d, null, true);
    if (typeof re === 'string') return bad('split', re);
    if (re.test('')) return bad('split', 'delimiter matches the empty string');
    re.lastIndex = 0;
    return s.split(re).filter((x) => x !== undefined);
  }),
);
def(
  'string join',
  sig(
    ['list', 'delimiter'],
    (l, d) => {
      const p = undefined,
        sfx = undefined;
      if (typeof l === 'string') l = [l];
      if (!Array.isArray(l)) return bad('string join');
      if (d != null && !isStr(d)) return bad('string join');
      const parts: string[] = [];
      for (const e of l) {
        if (e === null) continue;
        if (!isStr(e)) return bad('string join', 'list must contain strings');
        parts.push(e);
      }
      return (isStr(p) ? p : '') + parts.join((d as string) ?? '') + (isStr(sfx) ? sfx : '');
    },
    1,
  ),
);

// ---------------------------------------------------------------- lists
def(
  'list contains',
  sig(['list', 'element'], (l, e) => {
    if (!Array.isArray(l)) return bad('list contains');
    for (const x of l) {
      if (e === null || e === undefined) {
        if (x === null) return true;
      } else if (feelEquals(x, e) === true) return true;
    }
    return false;
  }),
);
def(
  'count',
  sig(['list'], (l) => (Array.isArray(l) ? l.length : bad('count'))),
);

function minmax(name: string, sign: number) {
  return sig(
    ['list'],
    (...args) => {
      const l = listArg(args);
      if (!l) return bad(name);
      if (l.length === 0) return null;
      let best: FeelValue = l[0];
      for (let i = 1; i < l.length; i++) {
        const c = feelCompare(l[i], best);
        if (c === null) return bad(name, 'elements are not comparable');
        if (c * sign > 0) best = l[i];
      }
      if (l.length === 1 && feelCompare(best, best) === null) return bad(name, 'element not comparable');
      return best;
    },
    1,
    true,
  );
}
def('min', minmax('min', -1));
def('max', minmax('max', 1));

function numList(name: string, args: V[]): Decimal[] | null {
  const l = listArg(args);
  if (!l) return bad(name);
  const ds: Decimal[] = [];
  for (const e of l) {
    const d = num(e);
    if (!d) return bad(name, 'list must contain numbers');
    ds.push(d);
  }
  return ds;
}
def(
  'sum',
  sig(
    ['list'],
    (...args) => {
      const l = numList('sum', args);
      if (!l) return null;
      if (l.length === 0) return null;
      return out(l.reduce((a, b) => a.plus(b), new Decimal(0)));
    },
    1,
    true,
  ),
);
def(
  'product',
  sig(
    ['list'],
    (...args) => {
      const l = numList('product', args);
      if (!l) return null;
      if (l.length === 0) return null;
      return out(l.reduce((a, b) => a.times(b), new Decimal(1)));
    },
    1,
    true,
  ),
);
def(
  'mean',
  sig(
    ['list'],
    (...args) => {
      const l = numList('mean', args);
      if (!l || l.length === 0) return null;
      return out(l.reduce((a, b) => a.plus(b), new Decimal(0)).div(l.length));
    },
    1,
    true,
  ),
);
def(
  'median',
  sig(
    ['list'],
    (...args) => {
      const l = numList('median', args);
      if (!l || l.length === 0) return null;
      const s = [...l].sort((a, b) => a.cmp(b));
      const m = s.length >> 1;
      return out(s.length % 2 ? s[m] : s[m - 1].plus(s[m]).div(2));
    },
    1,
    true,
  ),
);
def(
  'stddev',
  sig(
    ['list'],
    (...args) => {
      const l = numList('stddev', args);
      if (!l || l.length < 2) return null;
      const mean = l.reduce((a, b) => a.plus(b), new Decimal(0)).div(l.length);
      const v = l.reduce((a, b) => a.plus(b.minus(mean).pow(2)), new Decimal(0)).div(l.length - 1);
      return out(v.sqrt());
    },
    1,
    true,
  ),
);
def(
  'mode',
  sig(
    ['list'],
    (...args) => {
      const l = numList('mode', args);
      if (!l) return null;
      const counts = new Map<string, { d: Decimal; n: number }>();
      for (const d of l) {
        const k = d.toString();
        const e = counts.get(k);
        if (e) e.n++;
        else counts.set(k, { d, n: 1 });
      }
      let max = 0;
      for (const e of counts.values()) max = Math.max(max, e.n);
      return [...counts.values()]
        .filter((e) => e.n === max)
        .map((e) => e.d)
        .sort((a, b) => a.cmp(b))
        .map((d) => normNum(d));
    },
    1,
    true,
  ),
);
function boolAgg(name: string, isAll: boolean) {
  return sig(
    ['list'],
    (...args) => {
      const l = listArg(args);
      if (!l) return bad(name);
      let sawOther = false;
      for (const e of l) {
        if (e === !isAll) return !isAll;
        if (typeof e !== 'boolean') sawOther = true;
      }
      return sawOther ? null : isAll;
    },
    1,
    true,
  );
}
def('all', boolAgg('all', true));
def('any', boolAgg('any', false));

def(
  'sublist',
  sig(
    ['list', 'start position', 'length'],
    (l, start, len) => {
      if (!Array.isArray(l)) return bad('sublist');
      let s = int(start);
      if (s === null || s === 0 || Math.abs(s) > l.length) return bad('sublist', 'invalid start position');
      if (s < 0) s = l.length + s + 1;
      if (len === undefined || len === null) return l.slice(s - 1);
      const n = int(len);
      if (n === null || n < 0 || s - 1 + n > l.length) return bad('sublist', 'invalid length');
      return l.slice(s - 1, s - 1 + n);
    },
    2,
  ),
);
def(
  'append',
  sig(
    ['list', 'item'],
    (l, ...items) => {
      if (!Array.isArray(l)) return bad('append');
      return [...l, ...items.map((x) => (x === undefined ? null : x))];
    },
    1,
    true,
  ),
);
def(
  'concatenate',
  sig(
    ['list'],
    (...ls) => {
      const r: FeelValue[] = [];
      for (const l of ls) {
        if (!Array.isArray(l)) return bad('concatenate');
        r.push(...l);
      }
      return r;
    },
    0,
    true,
  ),
);
def(
  'insert before',
  sig(['list', 'position', 'newItem'], (l, p, item) => {
    if (!Array.isArray(l)) return bad('insert before');
    let i = int(p);
    if (i === null || i === 0 || Math.abs(i) > l.length) return bad('insert before', 'invalid position');
    if (i < 0) i = l.length + i + 1;
    const r = [...l];
    r.splice(i - 1, 0, item ?? null);
    return r;
  }),
);
def(
  'remove',
  sig(['list', 'position'], (l, p) => {
    if (!Array.isArray(l)) return bad('remove');
    let i = int(p);
    if (i === null || i === 0 || Math.abs(i) > l.length) return bad('remove', 'invalid position');
    if (i < 0) i = l.length + i + 1;
    const r = [...l];
    r.splice(i - 1, 1);
    return r;
  }),
);
def(
  'reverse',
  sig(['list'], (l) => (Array.isArray(l) ? [...l].reverse() : bad('reverse'))),
);
def(
  'index of',
  sig(['list', 'match'], (l, m) => {
    if (!Array.isArray(l)) return bad('index of');
    const r: number[] = [];
    l.forEach((x, i) => {
      if (m === null || m === undefined ? x === null : feelEquals(x, m) === true) r.push(i + 1);
    });
    return r;
  }),
);
function distinct(l: FeelValue[]): FeelValue[] {
  const r: FeelValue[] = [];
  for (const x of l) if (!r.some((y) => (x === null ? y === null : feelEquals(x, y) === true))) r.push(x);
  return r;
}
def(
  'union',
  sig(
    ['list'],
    (...ls) => {
      const all: FeelValue[] = [];
      for (const l of ls) {
        if (!Array.isArray(l)) return bad('union');
        all.push(...l);
      }
      return distinct(all);
    },
    0,
    true,
  ),
);
def(
  'distinct values',
  sig(['list'], (l) => (Array.isArray(l) ? distinct(l) : bad('distinct values'))),
);
function flat(l: FeelValue[], outList: FeelValue[], depth: number): void {
  if (depth > 500) return;
  for (const x of l) {
    if (Array.isArray(x)) flat(x, outList, depth + 1);
    else outList.push(x);
  }
}
def(
  'flatten',
  sig(['list'], (l) => {
    if (!Array.isArray(l)) return bad('flatten');
    const r: FeelValue[] = [];
    flat(l, r, 0);
    return r;
  }),
);
def(
  'sort',
  sig(
    ['list', 'precedes'],
    (l, f) => {
      if (!Array.isArray(l)) return bad('sort');
      if (f === undefined || f === null) {
        let ok = true;
        const r = [...l].sort((a, b) => {
          const c = feelCompare(a, b);
          if (c === null) ok = false;
          return c ?? 0;
        });
        return ok ? r : bad('sort', 'elements are not comparable');
      }
      if (!(f instanceof FeelFunction)) return bad('sort');
      let ok = true;
      const r = [...l].sort((a, b) => {
        if (!ok) return 0;
        const x = f.invoke([a, b]);
        if (x === true) return -1;
        if (x !== false) {
          ok = false;
          return 0;
        }
        const y = f.invoke([b, a]);
        return y === true ? 1 : 0;
      });
      return ok ? r : bad('sort', 'precedes function did not return a boolean');
    },
    1,
  ),
);
def(
  'list replace',
  sig(['list', 'position', 'newItem'], (l, p, item) => {
    if (l !== null && l !== undefined && !Array.isArray(l)) l = [l];
    if (!Array.isArray(l)) return bad('list replace');
    if (p instanceof FeelFunction) {
      if (!p.options.builtin && p.params.length !== 2)
        return bad('list replace', 'match function must take 2 parameters');
      const r: FeelValue[] = [];
      for (const x of l) {
        const m = p.invoke([x, item ?? null]);
        if (typeof m !== 'boolean') return bad('list replace', 'match function must return a boolean');
        r.push(m ? (item ?? null) : x);
      }
      return r;
    }
    const pd = num(p);
    let i = pd ? pd.trunc().toNumber() : null;
    if (i === null || i === 0 || Math.abs(i) > l.length) return bad('list replace', 'invalid position');
    if (i < 0) i = l.length + i + 1;
    const r = [...l];
    r[i - 1] = item ?? null;
    return r;
  }),
);
// named variant: list replace(list, match, newItem)
builtins
  .get('list replace')!
  .sigs.push(
    sig(['list', 'match', 'newItem'], (l, m, item) => builtins.get('list replace')!.sigs[0].impl(l, m, item)),
  );

// ---------------------------------------------------------------- numbers
function rounder(name: string, mode: number, scaleOptional: boolean) {
  return sig(
    ['n', 'scale'],
    (n, scale) => {
      const d = num(n);
      if (!d) return bad(name);
      let s = 0;
      if (scale === null) return bad(name, 'scale is null');
      if (scale !== undefined) {
        const scd = num(scale);
        if (!scd) return bad(name, 'invalid scale');
        const sc = scd.trunc().toNumber();
        if (sc < -6111 || sc > 6176) return bad(name, 'invalid scale');
        s = sc;
      } else if (!scaleOptional) return bad(name, 'scale required');
      if (s >= 0) return out(d.toDecimalPlaces(s, mode as 0));
      const q = new Decimal(10).pow(-s);
      return out(
        d
          .div(q)
          .toDecimalPlaces(0, mode as 0)
          .times(q),
      );
    },
    scaleOptional ? 1 : 2,
  );
}
def('decimal', rounder('decimal', Decimal.ROUND_HALF_EVEN, false));
def('floor', rounder('floor', Decimal.ROUND_FLOOR, true));
def('ceiling', rounder('ceiling', Decimal.ROUND_CEIL, true));
def('round up', rounder('round up', Decimal.ROUND_UP, false));
def('round down', rounder('round down', Decimal.ROUND_DOWN, false));
def('round half up', rounder('round half up', Decimal.ROUND_HALF_UP, false));
def('round half down', rounder('round half down', Decimal.ROUND_HALF_DOWN, false));
def(
  'abs',
  sig(['n'], (n) => {
    if (isNumber(n)) return out(toDecimal(n).abs());
    if (n instanceof DaysTimeDuration) return new DaysTimeDuration(n.seconds.abs());
    if (n instanceof YearsMonthsDuration) return new YearsMonthsDuration(Math.abs(n.months));
    return bad('abs');
  }),
);
def(
  'modulo',
  sig(['dividend', 'divisor'], (a, b) => {
    const x = num(a),
      y = num(b);
    if (!x || !y) return bad('modulo');
    if (y.isZero()) return bad('modulo', 'division by zero');
    return out(x.minus(y.times(x.div(y).floor())));
  }),
);
def(
  'sqrt',
  sig(['number'], (n) => {
    const d = num(n);
    if (!d || d.isNegative()) return bad('sqrt');
    return out(d.sqrt());
  }),
);
def(
  'log',
  sig(['number'], (n) => {
    const d = num(n);
    if (!d || d.lte(0)) return bad('log');
    return out(d.ln());
  }),
);
def(
  'exp',
  sig(['number'], (n) => {
    const d = num(n);
    if (!d) return bad('exp');
    return out(d.exp());
  }),
);
def(
  'odd',
  sig(['number'], (n) => {
    const d = num(n);
    if (!d || !d.isInteger()) return bad('odd');
    return !d.mod(2).isZero();
  }),
);
def(
  'even',
  sig(['number'], (n) => {
    const d = num(n);
    if (!d || !d.isInteger()) return bad('even');
    return d.mod(2).isZero();
  }),
);

// ---------------------------------------------------------------- dates
def(
  'is',
  sig(['value1', 'value2'], (a, b) => {
    if (a == null || b == null) return a == b;
    if (typeName(a) !== typeName(b)) return false;
    if (a instanceof FeelTime || a instanceof FeelDate || a instanceof FeelDateTime)
      return String(a) === String(b);
    return feelEquals(a, b) === true;
  }),
);
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
function dateOf(v: V): FeelDate | null {
  if (v instanceof FeelDateTime) return v.date;
  if (v instanceof FeelDate) return v;
  return null;
}
export function dayOfWeek(d: FeelDate): number {
  // 0 = Monday
  return (((d.epochDay + 3) % 7) + 7) % 7;
}
export function isoWeek(d: FeelDate): number {
  const dow = dayOfWeek(d);
  const thursday = d.epochDay - dow + 3;
  const ty = FeelDate.fromEpochDay(thursday).year;
  const jan1 = new FeelDate(ty, 1, 1).epochDay;
  return Math.floor((thursday - jan1) / 7) + 1;
}
def(
  'day of year',
  sig(['date'], (v) => {
    const d = dateOf(v);
    return d ? d.epochDay - new FeelDate(d.year, 1, 1).epochDay + 1 : bad('day of year');
  }),
);
def(
  'day of week',
  sig(['date'], (v) => {
    const d = dateOf(v);
    return d ? DAYS[dayOfWeek(d)] : bad('day of week');
  }),
);
def(
  'month of year',
  sig(['date'], (v) => {
    const d = dateOf(v);
    return d ? MONTHS[d.month - 1] : bad('month of year');
  }),
);
def(
  'week of year',
  sig(['date'], (v) => {
    const d = dateOf(v);
    return d ? isoWeek(d) : bad('week of year');
  }),
);
def(
  'now',
  sig([], () => nowDateTime()),
);
def(
  'today',
  sig([], () => nowDateTime().date),
);

// ---------------------------------------------------------------- contexts
def(
  'get value',
  sig(['m', 'key'], (m, k) => {
    if (!isContext(m)) return bad('get value');
    if (Array.isArray(k)) {
      let cur: FeelValue = m;
      for (const p of k) {
        if (!isContext(cur) || !isStr(p) || !hasOwn(cur, p)) return null;
        cur = cur[p];
      }
      return cur;
    }
    if (!isStr(k)) return bad('get value');
    return hasOwn(m, k) ? m[k] : null;
  }),
);
def(
  'get entries',
  sig(['m'], (m) => {
    if (!isContext(m)) return bad('get entries');
    return Object.keys(m).map((key) => ({ key, value: m[key] }));
  }),
);
def(
  'context',
  sig(['entries'], (entries) => {
    if (isContext(entries)) entries = [entries];
    if (!Array.isArray(entries)) return bad('context');
    const r: FeelContext = {};
    for (const e of entries) {
      if (!isContext(e) || !hasOwn(e, 'key') || !hasOwn(e, 'value') || !isStr(e.key))
        return bad('context', 'entries must be {key, value} contexts');
      if (hasOwn(r, e.key)) return bad('context', `duplicate key '${e.key}'`);
      defineKey(r, e.key, e.value);
    }
    return r;
  }),
);
export function defineKey(o: FeelContext, k: string, v: FeelValue): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}
function putPath(c: FeelContext, keys: string[], v: FeelValue): FeelValue {
  const r: FeelContext = { ...c };
  const [k, ...rest] = keys;
  if (rest.length === 0) defineKey(r, k, v);
  else {
    const inner = hasOwn(c, k) ? c[k] : null;
    if (!isContext(inner)) return bad('context put', 'nested key path does not lead to a context');
    const x = putPath(inner, rest, v);
    if (x === null) return null;
    defineKey(r, k, x);
  }
  return r;
}
def(
  'context put',
  sig(['context', 'keys', 'value'], (c, k, v) => {
    if (!isContext(c)) return bad('context put');
    if (isStr(k)) return putPath(c, [k], v ?? null);
    if (!Array.isArray(k) || k.length === 0 || !k.every(isStr)) return bad('context put');
    return putPath(c, k as string[], v ?? null);
  }),
  sig(['context', 'key', 'value'], (c, k, v) => {
    if (!isContext(c) || !isStr(k)) return bad('context put');
    return putPath(c, [k], v ?? null);
  }),
);
def(
  'context merge',
  sig(['contexts'], (cs) => {
    if (isContext(cs)) cs = [cs];
    if (!Array.isArray(cs)) return bad('context merge');
    const r: FeelContext = {};
    for (const c of cs) {
      if (!isContext(c)) return bad('context merge');
      for (const k of Object.keys(c)) defineKey(r, k, c[k]);
    }
    return r;
  }),
);

// ---------------------------------------------------------------- ranges
const NEG = Symbol('-inf');
const POS = Symbol('+inf');
type P = FeelValue | typeof NEG | typeof POS;
interface R {
  s: P;
  si: boolean;
  e: P;
  ei: boolean;
}
function c3(a: P, b: P): number | null {
  if (a === NEG) return b === NEG ? 0 : -1;
  if (a === POS) return b === POS ? 0 : 1;
  if (b === NEG) return 1;
  if (b === POS) return -1;
  return feelCompare(a, b);
}
function L(a: P, b: P): boolean | null {
  const c = c3(a, b);
  return c === null ? null : c < 0;
}
function G(a: P, b: P): boolean | null {
  const c = c3(a, b);
  return c === null ? null : c > 0;
}
function E(a: P, b: P): boolean | null {
  if (typeof a === 'symbol' || typeof b === 'symbol') return a === b;
  return feelEquals(a, b);
}
function and(...xs: (boolean | null)[]): boolean | null {
  let n = false;
  for (const x of xs) {
    if (x === false) return false;
    if (x === null) n = true;
  }
  return n ? null : true;
}
function or(...xs: (boolean | null)[]): boolean | null {
  let n = false;
  for (const x of xs) {
    if (x === true) return true;
    if (x === null) n = true;
  }
  return n ? null : false;
}
function asRange(v: V): R | null {
  if (!(v instanceof FeelRange)) return null;
  return {
    s: v.start === undefined ? NEG : v.start,
    si: v.startIncluded,
    e: v.end === undefined ? POS : v.end,
    ei: v.endIncluded,
  };
}
function isPoint(v: V): v is FeelValue {
  return v !== null && v !== undefined && !(v instanceof FeelRange) && !Array.isArray(v) && !isContext(v);
}
type RF = {
  pp?: (a: FeelValue, b: FeelValue) => boolean | null;
  pr?: (a: FeelValue, b: R) => boolean | null;
  rp?: (a: R, b: FeelValue) => boolean | null;
  rr?: (a: R, b: R) => boolean | null;
};
function rangeFn(name: string, f: RF): void {
  const impl = (a: V, b: V): FeelValue => {
    if (a == null || b == null) return bad(name);
    const ra = asRange(a),
      rb = asRange(b);
    let r: boolean | null | undefined;
    if (ra && rb) r = f.rr?.(ra, rb);
    else if (ra && isPoint(b)) r = f.rp?.(ra, b);
    else if (rb && isPoint(a)) r = f.pr?.(a, rb);
    else if (isPoint(a) && isPoint(b)) r = f.pp?.(a, b);
    if (r === undefined) return bad(name);
    if (r === null) return bad(name, 'incomparable arguments');
    return r;
  };
  def(
    name,
    sig(['point1', 'point2'], impl),
    sig(['point', 'range'], impl),
    sig(['range', 'point'], impl),
    sig(['range1', 'range2'], impl),
    sig(['point1', 'range2'], impl),
    sig(['range1', 'point2'], impl),
  );
}
const before: RF = {
  pp: (a, b) => L(a, b),
  pr: (p, r) => or(L(p, r.s), and(E(p, r.s), !r.si)),
  rp: (r, p) => or(L(r.e, p), and(E(r.e, p), !r.ei)),
  rr: (a, b) => or(L(a.e, b.s), and(or(!a.ei, !b.si), E(a.e, b.s))),
};
rangeFn('before', before);
rangeFn('after', {
  pp: (a, b) => G(a, b),
  pr: (p, r) => or(G(p, r.e), and(E(p, r.e), !r.ei)),
  rp: (r, p) => or(G(r.s, p), and(E(r.s, p), !r.si)),
  rr: (a, b) => or(G(a.s, b.e), and(or(!a.si, !b.ei), E(a.s, b.e))),
});
rangeFn('meets', { rr: (a, b) => and(a.ei, b.si, E(a.e, b.s)) });
rangeFn('met by', { rr: (a, b) => and(b.ei, a.si, E(b.e, a.s)) });
rangeFn('overlaps', {
  rr: (a, b) =>
    and(or(G(a.e, b.s), and(E(a.e, b.s), a.ei, b.si)), or(L(a.s, b.e), and(E(a.s, b.e), a.si, b.ei))),
});
const overlapsBefore = (a: R, b: R) =>
  and(
    or(L(a.s, b.s), and(E(a.s, b.s), a.si, !b.si)),
    or(G(a.e, b.s), and(E(a.e, b.s), a.ei, b.si)),
    or(L(a.e, b.e), and(E(a.e, b.e), or(!a.ei, b.ei))),
  );
rangeFn('overlaps before', { rr: overlapsBefore });
rangeFn('overlaps after', { rr: (a, b) => overlapsBefore(b, a) });
const finishesPR = (p: FeelValue, r: R) => and(r.ei, E(r.e, p));
const finishesRR = (a: R, b: R) =>
  and(a.ei === b.ei, E(a.e, b.e), or(G(a.s, b.s), and(E(a.s, b.s), or(!a.si, b.si))));
rangeFn('finishes', { pr: finishesPR, rr: finishesRR });
rangeFn('finished by', { rp: (r, p) => finishesPR(p, r), rr: (a, b) => finishesRR(b, a) });
const includesRP = (r: R, p: FeelValue) =>
  or(and(L(r.s, p), G(r.e, p)), and(E(r.s, p), r.si), and(E(r.e, p), r.ei));
const includesRR = (a: R, b: R) =>
  and(or(L(a.s, b.s), and(E(a.s, b.s), or(a.si, !b.si))), or(G(a.e, b.e), and(E(a.e, b.e), or(a.ei, !b.ei))));
rangeFn('includes', { rp: includesRP, rr: includesRR });
rangeFn('during', { pr: (p, r) => includesRP(r, p), rr: (a, b) => includesRR(b, a) });
const startsPR = (p: FeelValue, r: R) => and(r.si, E(r.s, p));
const startsRR = (a: R, b: R) =>
  and(E(a.s, b.s), a.si === b.si, or(L(a.e, b.e), and(E(a.e, b.e), or(!a.ei, b.ei))));
rangeFn('starts', { pr: startsPR, rr: startsRR });
rangeFn('started by', { rp: (r, p) => startsPR(p, r), rr: (a, b) => startsRR(b, a) });
rangeFn('coincides', {
  pp: (a, b) => E(a, b),
  rr: (a, b) => and(E(a.s, b.s), a.si === b.si, E(a.e, b.e), a.ei === b.ei),
});

// keep references used only for side effects of imports
void ge;
void gt;
void le;
void lt;
void eq;
void add;
void div;
void matchesValue;

/** Signature text for autocomplete. */
export function builtinSignatures(): { name: string; signature: string }[] {
  const r: { name: string; signature: string }[] = [];
  for (const [name, f] of builtins)
    for (const s of f.sigs)
      r.push({ name, signature: `${name}(${s.params.join(', ')}${s.variadic ? ', …' : ''})` });
  return r;
}
