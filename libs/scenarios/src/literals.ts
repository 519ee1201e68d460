/**
 * Ordered literals of FEEL unary tests (numbers, dates, times, date-times, durations) as positions on a
 * number line with a step: what a boundary is, what "just below" and "just above" mean, and how a value
 * is written back as a JSON input (ISO strings for temporal columns) or as FEEL source (for mutants).
 */
import type { Node } from '@arbiter/feel';

export type LiteralKind = 'number' | 'date' | 'time' | 'dateTime' | 'duration' | 'yearMonthDuration';

export interface OrderedLiteral {
  kind: LiteralKind;
  /** position: the number; days since epoch; seconds of the day; epoch seconds; seconds; months */
  n: number;
  /** one step on this line: 1 for integers, 10^-k for k decimals, a day, a second, a month */
  step: number;
  /** `at` literal (`@"..."`) rather than a function call (kept when written back as FEEL) */
  at?: boolean;
  /** date-time text had no zone */
  local?: boolean;
}

const DAY_MS = 86_400_000;

function decimalsOf(text: string): number {
  const m = /\.(\d+)$/.exec(text.replace(/e.*$/i, ''));
  return m ? m[1].length : 0;
}

function numberLiteral(node: Node): OrderedLiteral | null {
  if (node.t === 'num') {
    const text = String(node.value);
    const n = Number(text);
    if (!Number.isFinite(n)) return null;
    const d = decimalsOf(text);
    return { kind: 'number', n, step: d === 0 ? 1 : Number(`1e-${d}`) };
  }
  if (node.t === 'neg') {
    const inner = numberLiteral(node.arg);
    return inner ? { ...inner, n: -inner.n } : null;
  }
  return null;
}

/** seconds of a days-time duration `-P1DT2H3M4.5S`, or null */
function dtDurationSeconds(text: string): number | null {
  const m = /^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) return null;
  const s = Number(m[2] ?? 0) * 86400 + Number(m[3] ?? 0) * 3600 + Number(m[4] ?? 0) * 60 + Number(m[5] ?? 0);
  return m[1] ? -s : s;
}
function ymDurationMonths(text: string): number | null {
  const m = /^(-)?P(?:(\d+)Y)?(?:(\d+)M)?$/.exec(text);
  if (!m || text === 'P' || (!m[2] && !m[3])) return null;
  const months = Number(m[2] ?? 0) * 12 + Number(m[3] ?? 0);
  return m[1] ? -months : months;
}

/** A temporal literal's text read as a position, the kind chosen by `fn` (or guessed for `@"..."`). */
export function temporalLiteral(fn: string | null, text: string): OrderedLiteral | null {
  const kind =
    fn ??
    (/^-?P/.test(text)
      ? 'duration'
      : /^\d{2}:\d{2}/.test(text)
        ? 'time'
        : text.includes('T')
          ? 'date and time'
          : 'date');
  const at = fn === null;
  switch (kind) {
    case 'date': {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
      const ms = Date.parse(`${text}T00:00:00Z`);
      return Number.isNaN(ms) ? null : { kind: 'date', n: Math.round(ms / DAY_MS), step: 1, at };
    }
    case 'time': {
      const m = /^(\d{2}):(\d{2}):(\d{2})$/.exec(text);
      if (!m) return null;
      return { kind: 'time', n: Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]), step: 1, at };
    }
    case 'date and time': {
      const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(Z)?$/.exec(text);
      if (!m) return null;
      const ms = Date.parse(`${m[1]}Z`);
      return Number.isNaN(ms) ? null : { kind: 'dateTime', n: ms / 1000, step: 1, at, local: !m[2] };
    }
    case 'duration': {
      const months = ymDurationMonths(text);
      if (months !== null) return { kind: 'yearMonthDuration', n: months, step: 1, at };
      const seconds = dtDurationSeconds(text);
      return seconds === null ? null : { kind: 'duration', n: seconds, step: 1, at };
    }
    default:
      return null;
  }
}

/** An ordered literal of a unary-test operand: `5000`, `-1.5`, `date("2024-01-31")`, `@"P1D"`, ... */
export function orderedLiteral(node: Node): OrderedLiteral | null {
  const num = numberLiteral(node);
  if (num) return num;
  if (node.t === 'at') return temporalLiteral(null, node.value);
  if (
    node.t === 'call' &&
    node.fn.t === 'name' &&
    ['date', 'time', 'date and time', 'duration'].includes(node.fn.name) &&
    node.args.length === 1 &&
    node.args[0].t === 'str' &&
    !node.named
  )
    return temporalLiteral(node.fn.name, node.args[0].value);
  return null;
}

const pad = (n: number, w = 2) => String(Math.trunc(Math.abs(n))).padStart(w, '0');

/** rounds away binary noise: a position is a multiple of its step */
function clean(lit: OrderedLiteral, n: number): number {
  if (lit.kind !== 'number' || lit.step >= 1) return lit.kind === 'number' ? n : Math.round(n);
  const d = Math.round(-Math.log10(lit.step));
  return Number(n.toFixed(d));
}

/** The text of a position (ISO for temporal kinds; null when out of range, e.g. a negative time). */
function isoText(lit: OrderedLiteral, n: number): string | null {
  switch (lit.kind) {
    case 'number':
      return null;
    case 'date': {
      const d = new Date(n * DAY_MS);
      return Number.isNaN(d.getTime()) ? null : d.toISOString().slice(0, 10);
    }
    case 'time':
      return n < 0 || n >= 86400 ? null : `${pad(n / 3600)}:${pad((n % 3600) / 60)}:${pad(n % 60)}`;
    case 'dateTime': {
      const d = new Date(n * 1000);
      if (Number.isNaN(d.getTime())) return null;
      const text = d.toISOString().slice(0, 19);
      return lit.local ? text : `${text}Z`;
    }
    case 'duration': {
      const a = Math.abs(n);
      const days = Math.floor(a / 86400);
      const rest = a - days * 86400;
      const h = Math.floor(rest / 3600);
      const m = Math.floor((rest % 3600) / 60);
      const s = rest % 60;
      let text = `P${days ? `${days}D` : ''}`;
      if (h || m || s || !days)
        text += `T${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${s}S` : ''}`;
      return `${n < 0 ? '-' : ''}${text}`;
    }
    case 'yearMonthDuration': {
      const a = Math.abs(n);
      return `${n < 0 ? '-' : ''}P${Math.floor(a / 12)}Y${a % 12}M`;
    }
  }
}

/** The JSON input value at position `n` of the literal's line (a number, or an ISO string). */
export function inputValueAt(lit: OrderedLiteral, n: number): unknown {
  const x = clean(lit, n);
  return lit.kind === 'number' ? x : isoText(lit, x);
}

/** The FEEL source of the literal moved to position `n` (for mutants). */
export function feelLiteralAt(lit: OrderedLiteral, n: number): string | null {
  const x = clean(lit, n);
  if (lit.kind === 'number') return String(x);
  const text = isoText(lit, x);
  if (text === null) return null;
  if (lit.at) return `@${JSON.stringify(text)}`;
  const fn =
    lit.kind === 'dateTime' ? 'date and time' : lit.kind === 'yearMonthDuration' ? 'duration' : lit.kind;
  return `${fn}(${JSON.stringify(text)})`;
}

const TEMPORAL_FN: Record<string, string> = {
  date: 'date',
  time: 'time',
  dateTime: 'date and time',
  duration: 'duration',
  yearMonthDuration: 'duration',
};

/**
 * A JSON input value moved by `offset` steps on its own line: a number by one unit of its last decimal,
 * an ISO date by a day, a time or date-time by a second, a duration by its smallest unit. `type` is the
 * column type when known (it picks the temporal reading of a string). null when the value has no line.
 */
export function shiftValue(value: unknown, offset: number, type?: string): unknown {
  if (typeof value === 'number') {
    const d = /\.(\d+)$/.exec(String(value))?.[1].length ?? 0;
    const step = d ? Number(`1e-${d}`) : 1;
    return Number((value + offset * step).toFixed(Math.max(d, 0)));
  }
  if (typeof value !== 'string') return null;
  const fns = type && TEMPORAL_FN[type] ? [TEMPORAL_FN[type]] : ['date', 'date and time', 'time', 'duration'];
  for (const fn of fns) {
    const lit = temporalLiteral(fn, value);
    if (lit) return inputValueAt(lit, lit.n + offset * lit.step);
  }
  return null;
}
