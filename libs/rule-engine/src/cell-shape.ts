/**
 * What a unary-test cell means, when it is simple enough to reason about: `-`, a set of string or
 * boolean literals, or a union of numeric intervals. Everything else is `opaque` (evaluated by its
 * compiled FEEL test). Shapes drive both the evaluation index and the table analysis.
 */
import { Decimal, parse, type Node } from '@arbiter/feel';

export interface Interval {
  lo: number; // -Infinity when open-ended
  hi: number; // +Infinity when open-ended
  loIncl: boolean;
  hiIncl: boolean;
}

export type CellShape =
  | { kind: 'any' }
  | { kind: 'strings'; values: string[] }
  | { kind: 'booleans'; values: boolean[] }
  | { kind: 'numbers'; intervals: Interval[] }
  | { kind: 'opaque' };

const ANY: CellShape = { kind: 'any' };
const OPAQUE: CellShape = { kind: 'opaque' };

/** A JS number exactly equal (as FEEL compares host numbers) to a numeric literal, or null. */
export function exactNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Decimal) {
    const text = value.toString();
    const n = Number(text);
    return Number.isFinite(n) && String(n) === text ? n : null;
  }
  return null;
}

function literalNumber(node: Node): number | null {
  if (node.t === 'num') return exactNumber(node.value);
  if (node.t === 'neg' && node.arg.t === 'num') {
    const n = exactNumber(node.arg.value);
    return n === null ? null : -n;
  }
  return null;
}

/** Shape of a unary-test text; `opaque` when it cannot be parsed or uses anything beyond literals. */
export function cellShape(text: string | undefined | null): CellShape {
  const source = (text ?? '').trim();
  if (source === '' || source === '-') return ANY;
  try {
    return shapeOfAst(parse(source, { unaryTests: true }));
  } catch {
    return OPAQUE;
  }
}

/** Shape of a parsed unary-test AST (as `compileUnaryTests(...).ast` gives it). */
export function shapeOfAst(ast: Node): CellShape {
  if (ast.t === 'uany') return ANY;
  if (ast.t !== 'ulist') return OPAQUE;
  const strings: string[] = [];
  const booleans: boolean[] = [];
  const intervals: Interval[] = [];
  for (const test of ast.tests) {
    if (test.t === 'str') strings.push(test.value);
    else if (test.t === 'bool') booleans.push(test.value);
    else if (test.t === 'num' || test.t === 'neg') {
      const n = literalNumber(test);
      if (n === null) return OPAQUE;
      intervals.push({ lo: n, hi: n, loIncl: true, hiIncl: true });
    } else if (test.t === 'utest') {
      const n = literalNumber(test.arg);
      if (n === null) return OPAQUE;
      switch (test.op) {
        case '<':
          intervals.push({ lo: -Infinity, hi: n, loIncl: false, hiIncl: false });
          break;
        case '<=':
          intervals.push({ lo: -Infinity, hi: n, loIncl: false, hiIncl: true });
          break;
        case '>':
          intervals.push({ lo: n, hi: Infinity, loIncl: false, hiIncl: false });
          break;
        case '>=':
          intervals.push({ lo: n, hi: Infinity, loIncl: true, hiIncl: false });
          break;
        case '=':
          intervals.push({ lo: n, hi: n, loIncl: true, hiIncl: true });
          break;
        default:
          return OPAQUE;
      }
    } else if (test.t === 'range' && test.start && test.end) {
      const lo = literalNumber(test.start);
      const hi = literalNumber(test.end);
      if (lo === null || hi === null) return OPAQUE;
      intervals.push({ lo, hi, loIncl: test.startIncl, hiIncl: test.endIncl });
    } else return OPAQUE;
  }
  const kinds = (strings.length ? 1 : 0) + (booleans.length ? 1 : 0) + (intervals.length ? 1 : 0);
  if (kinds !== 1) return OPAQUE;
  // slice(): exact-size copies (arrays grown by push keep spare capacity, and shapes live as long as
  // the compiled table)
  if (strings.length) return { kind: 'strings', values: strings.slice() };
  if (booleans.length) return { kind: 'booleans', values: booleans.slice() };
  return { kind: 'numbers', intervals: intervals.slice() };
}

export function intervalContains(i: Interval, x: number): boolean {
  return (x > i.lo || (i.loIncl && x === i.lo)) && (x < i.hi || (i.hiIncl && x === i.hi));
}

/** Does a simple (non-opaque) shape accept the value? null when the shape says nothing. */
export function shapeAccepts(shape: CellShape, value: unknown): boolean | null {
  switch (shape.kind) {
    case 'any':
      return true;
    case 'strings':
      return typeof value === 'string' && shape.values.includes(value);
    case 'booleans':
      return typeof value === 'boolean' && shape.values.includes(value);
    case 'numbers':
      return typeof value === 'number' && shape.intervals.some((i) => intervalContains(i, value));
    default:
      return null;
  }
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A number literal whose double prints back as written (so FEEL's decimal and the double agree), or null. */
function plainNumber(text: string): number | null {
  if (!NUMBER.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) && String(n) === text ? n : null;
}

/**
 * The shape of the commonest cells read without the FEEL parser: `-`, comma lists of plain string
 * literals (no escapes), of `true`/`false`, or of plain numbers, comparisons with a number (`<`, `<=`,
 * `>`, `>=`) and ranges of two numbers. Returns null for anything else: such a cell goes through the
 * FEEL compiler (and `shapeOfAst`). What it accepts is valid FEEL with exactly this meaning, so a table
 * of simple cells is checked and indexed without parsing or compiling each cell (the compiled FEEL test
 * is only built on the index's rare fallback, see `CompiledDecisionTable`).
 */
export function fastCellShape(text: string): CellShape | null {
  const src = text.trim();
  if (src === '' || src === '-') return ANY;
  const strings: string[] = [];
  const booleans: boolean[] = [];
  const intervals: Interval[] = [];
  let i = 0;
  const n = src.length;
  const skip = () => {
    while (i < n && (src.charCodeAt(i) === 32 || src.charCodeAt(i) === 9)) i++;
  };
  const num = (): number | null => {
    skip();
    const start = i;
    if (src[i] === '-') i++;
    while (i < n && isDigit(src.charCodeAt(i))) i++;
    if (src[i] === '.' && isDigit(src.charCodeAt(i + 1))) {
      i++;
      while (i < n && isDigit(src.charCodeAt(i))) i++;
    }
    return i > start ? plainNumber(src.slice(start, i)) : null;
  };
  for (;;) {
    skip();
    if (i >= n) return null;
    const ch = src[i];
    if (ch === '"') {
      const end = src.indexOf('"', i + 1);
      if (end < 0) return null;
      const value = src.slice(i + 1, end);
      if (value.includes('\\')) return null;
      strings.push(value);
      i = end + 1;
    } else if (src.startsWith('true', i) || src.startsWith('false', i)) {
      const value = src[i] === 't';
      i += value ? 4 : 5;
      booleans.push(value);
    } else if (ch === '[' || ch === '(' || ch === ']') {
      i++;
      const lo = num();
      skip();
      if (lo === null || !src.startsWith('..', i)) return null;
      i += 2;
      const hi = num();
      skip();
      if (hi === null || i >= n || (src[i] !== ']' && src[i] !== ')' && src[i] !== '[')) return null;
      intervals.push({ lo, hi, loIncl: ch === '[', hiIncl: src[i] === ']' });
      i++;
    } else if (ch === '<' || ch === '>') {
      i++;
      const incl = src[i] === '=';
      if (incl) i++;
      const x = num();
      if (x === null) return null;
      intervals.push(
        ch === '<'
          ? { lo: -Infinity, hi: x, loIncl: false, hiIncl: incl }
          : { lo: x, hi: Infinity, loIncl: incl, hiIncl: false },
      );
    } else {
      const x = num();
      if (x === null) return null;
      intervals.push({ lo: x, hi: x, loIncl: true, hiIncl: true });
    }
    skip();
    if (i >= n) break;
    if (src[i] !== ',') return null;
    i++;
  }
  const kinds = (strings.length ? 1 : 0) + (booleans.length ? 1 : 0) + (intervals.length ? 1 : 0);
  if (kinds !== 1) return null;
  if (strings.length) return { kind: 'strings', values: strings };
  if (booleans.length) return { kind: 'booleans', values: booleans };
  return { kind: 'numbers', intervals };
}
