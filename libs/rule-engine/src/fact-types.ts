/**
 * Types of the facts a temporal column's cells compare its input with.
 *
 * JSON has no date, time or duration: a temporal column's input arrives as an ISO string and is read by
 * its column type (`coerceInput`). A cell of such a column may compare the input with another fact
 * rather than a literal (`> Complex.aDate`, `[start..end]`, `not(holiday)`). In DMN, that fact's input
 * data would carry a typeRef saying it is a date; through the JSON API the column says it: the fact is
 * read as the column's type when it arrives as a string that parses as one. Without this, FEEL compares a
 * date with a string, which is null, and no such row can ever match through the API.
 *
 * Only the operands of the cell's tests are typed (a comparison's argument, a range's ends, a bare
 * operand), never a value deep inside a function call; a fact compared in columns of different types is
 * left as sent; the input columns themselves are typed by their own column.
 */
import type { CompiledUnaryTests, Node } from '@arbiter/feel';
import { coerceInput } from './input-types';
import { own, setOwn } from './own';
import { runToEnd, STEP_EVERY, type Steps } from './yielding';
import { ColumnType } from './types';

export interface TypedFact {
  /** the fact's path in the input (`['Complex', 'aDate']`) */
  readonly path: readonly string[];
  readonly type: ColumnType;
}

const TEMPORAL: ReadonlySet<ColumnType> = new Set<ColumnType>([
  'date',
  'time',
  'dateTime',
  'duration',
  'yearMonthDuration',
]);

function namePath(node: Node): string[] | null {
  if (node.t === 'name') return [node.name];
  if (node.t === 'path') {
    const target = namePath(node.target);
    return target ? [...target, node.name] : null;
  }
  return null;
}

/** the fact paths a unary test compares its input with, directly (not inside calls or arithmetic) */
function operandPaths(node: Node, out: string[][]): void {
  switch (node.t) {
    case 'name':
    case 'path': {
      const path = namePath(node);
      if (path) out.push(path);
      return;
    }
    case 'utest':
      operandPaths(node.arg, out);
      return;
    case 'range':
      if (node.start) operandPaths(node.start, out);
      if (node.end) operandPaths(node.end, out);
      return;
    case 'ulist':
    case 'unot':
      for (const test of node.tests) operandPaths(test, out);
      return;
    default:
      return;
  }
}

/** whether a FEEL node reads the name `name` anywhere (a column read inside a call or arithmetic too) */
function reads(node: unknown, name: string, depth = 0): boolean {
  if (!node || typeof node !== 'object' || depth > 200) return false;
  const n = node as Node;
  if (n.t === 'name') return n.name === name;
  for (const v of Object.values(n))
    if (Array.isArray(v) ? v.some((x) => reads(x, name, depth + 1)) : reads(v, name, depth + 1)) return true;
  return false;
}

export interface FactTyping {
  /** facts other than the input columns that temporal columns' cells compare their input with */
  facts: TypedFact[];
  /**
   * Temporal input columns some cell reads by name (`< Start Date` in another column): the cell sees
   * the column's bound value (a date), as its own column's test does, not the string that was sent.
   */
  columns: number[];
}

/**
 * What to type for one table. `tests[row][column]` is a cell's compiled test, or null where the cell
 * needs none (`-`, or a literal the index decides: such a cell reads no fact).
 */
export function factTypingOf(
  columns: readonly string[],
  types: readonly ColumnType[],
  tests: readonly (readonly (CompiledUnaryTests | null)[])[],
): FactTyping {
  return runToEnd(factTypingSteps(columns, types, tests));
}

/** `factTypingOf` as steps (a pause every STEP_EVERY rows: a 100,000-row compile in slices). */
export function* factTypingSteps(
  columns: readonly string[],
  types: readonly ColumnType[],
  tests: readonly (readonly (CompiledUnaryTests | null)[])[],
): Steps<FactTyping> {
  const found = new Map<string, { path: string[]; type: ColumnType | null }>();
  const inputs = new Set(columns);
  const asts: Node[] = [];
  for (let r = 0; r < tests.length; r++) {
    if (r % STEP_EVERY === STEP_EVERY - 1) yield;
    const row = tests[r];
    for (let c = 0; c < row.length; c++) {
      const test = row[c];
      if (test === null) continue;
      asts.push(test.ast);
      const type = types[c];
      if (!TEMPORAL.has(type)) continue;
      const paths: string[][] = [];
      operandPaths(test.ast, paths);
      for (const path of paths) {
        if (inputs.has(path[0])) continue;
        const key = path.join('\u0000');
        const seen = found.get(key);
        if (!seen) found.set(key, { path, type });
        else if (seen.type !== type) seen.type = null; // compared in columns of different types
      }
    }
  }
  const facts: TypedFact[] = [];
  for (const { path, type } of found.values()) if (type !== null) facts.push({ path, type });
  const read: number[] = [];
  columns.forEach((name, c) => {
    if (TEMPORAL.has(types[c]) && asts.some((ast) => reads(ast, name))) read.push(c);
  });
  return { facts, columns: read };
}

function parsed(value: string, type: ColumnType): unknown {
  try {
    return coerceInput(value, type, '');
  } catch {
    return undefined;
  }
}

function typedAt(object: Record<string, unknown>, fact: TypedFact, depth: number): Record<string, unknown> {
  const key = fact.path[depth];
  const value = own(object, key);
  let next: unknown;
  if (depth === fact.path.length - 1) {
    if (typeof value !== 'string') return object;
    next = parsed(value, fact.type);
    if (next === undefined) return object; // not an ISO value of the type: compared as sent
  } else {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return object;
    next = typedAt(value as Record<string, unknown>, fact, depth + 1);
    if (next === value) return object;
  }
  const copy = { ...object };
  setOwn(copy, key, next);
  return copy;
}

/** The input with each typed fact that arrived as a string read as its type (copied where changed). */
export function withTypedFacts(
  input: Record<string, unknown>,
  facts: readonly TypedFact[],
): Record<string, unknown> {
  let out = input;
  for (const fact of facts) out = typedAt(out, fact, 0);
  return out;
}
