/**
 * A decision table as the generator, the coverage and the failure analysis see it: its columns, and per
 * row and column the cell text, its FEEL unary test compiled by @arbiter/feel (the compiler the engine
 * uses) and its probes. Cells reading other columns are tested with the other input values as context.
 */
import { compileUnaryTests, type CompiledUnaryTests, type Node } from '@arbiter/feel';
import {
  ColumnType,
  CompiledDecisionTable,
  DEFAULT_LIMITS,
  TableCompileError,
  coerceInput,
  factTypingOf,
  normalizeDefinition,
  withTypedFacts,
  type TypedFact,
  type CompileOptions,
} from '@arbiter/rule-engine';
import { Probe, probesOf } from './probes';

export interface ModelCell {
  text: string;
  /** null: `-` (any value) */
  test: CompiledUnaryTests | null;
  /** the cell refers to names other than `?` (other columns): its result depends on the whole input */
  usesNames: boolean;
  probes: Probe[];
  /**
   * Facts the cell compares the input with (`> Complex.aNumber`, `[numB..numC]`, `< otherColumn`): paths
   * of names other than `?`, read from its AST. The generator solves the cell from their values.
   */
  refs: string[][];
}
export interface ModelColumn {
  name: string;
  type: ColumnType;
  required: boolean;
  computed: boolean;
}
export interface TableModel {
  compiled: CompiledDecisionTable;
  columns: ModelColumn[];
  rowIds: string[];
  /** cells[row][column] */
  cells: ModelCell[][];
  /** a string no cell of the column lists */
  unlisted: string[];
  /** facts the cells compare temporal inputs with, typed as the engine types them (rule-engine fact-types) */
  typedFacts: TypedFact[];
}

function namePath(node: Node): string[] | null {
  if (node.t === 'name') return [node.name];
  if (node.t === 'path') {
    const target = namePath(node.target);
    return target ? [...target, node.name] : null;
  }
  return null;
}

/** the fact paths a unary test reads (function names and `?` excluded) */
export function referencedPaths(node: unknown, out: string[][] = [], depth = 0): string[][] {
  if (!node || typeof node !== 'object' || depth > 60) return out;
  const n = node as Node;
  if (n.t === 'call') {
    n.args.forEach((a) => referencedPaths(a, out, depth + 1));
    n.named?.forEach((a) => referencedPaths(a.value, out, depth + 1));
    return out;
  }
  if (n.t === 'name' || n.t === 'path') {
    const p = namePath(n);
    if (p && !out.some((o) => o.join('.') === p.join('.'))) out.push(p);
    if (p) return out;
  }
  for (const v of Object.values(n))
    if (Array.isArray(v)) v.forEach((x) => referencedPaths(x, out, depth + 1));
    else if (v && typeof v === 'object') referencedPaths(v, out, depth + 1);
  return out;
}

function usesNames(node: unknown, depth = 0): boolean {
  if (!node || typeof node !== 'object' || depth > 60) return false;
  const n = node as Node;
  if (n.t === 'name' || n.t === 'path')
    return !(n.t === 'name' && ['date', 'time', 'duration', 'date and time'].includes(n.name));
  return Object.values(n).some((v) =>
    Array.isArray(v)
      ? v.some((x) => usesNames(x, depth + 1))
      : typeof v === 'object' && usesNames(v, depth + 1),
  );
}

/** Compiles the table once (the engine's compiler) and keeps every cell's compiled test. Throws TableCompileError. */
export function buildTableModel(definition: unknown, options: CompileOptions = {}): TableModel {
  const normalized = normalizeDefinition(definition, options.limits ?? DEFAULT_LIMITS);
  if (!normalized.table) throw new TableCompileError(normalized.problems);
  const table = normalized.table;
  const compiled = new CompiledDecisionTable(table, options.maxSteps);
  const columns = table.inputs.map((i) => ({
    name: i.name,
    type: i.type,
    required: i.required,
    computed: i.expression !== undefined,
  }));
  const listed = columns.map(() => new Set<string>());
  const names = new Map<CompiledUnaryTests, boolean>();
  // The engine reads simple cells (`>= 5000`, `"NL"`, `true`) by their shape without FEEL: their
  // `tests` entry is null. The model needs every cell's AST (probes, verdicts), so those are compiled
  // here, once per distinct text, as the engine's fallback compiles them (scope: the input names).
  const scope = columns.map((col) => col.name);
  const compiledTexts = new Map<string, CompiledUnaryTests>();
  const testOf = (text: string, given: CompiledUnaryTests | null): CompiledUnaryTests | null => {
    if (given) return given;
    if (text === '' || text === '-') return null;
    let test = compiledTexts.get(text);
    if (!test) compiledTexts.set(text, (test = compileUnaryTests(text, { scope })));
    return test;
  };
  const rows = table.rows.map((row) =>
    row.cells.map((raw, c) => {
      const text = (raw ?? '').trim();
      const test = testOf(text, row.tests[c]);
      if (!test || test.ast.t === 'uany') return { text: '-', test: null, usesNames: false, ast: null };
      let uses = names.get(test);
      if (uses === undefined) names.set(test, (uses = usesNames(test.ast)));
      return { text, test, usesNames: uses, ast: test.ast };
    }),
  );
  // an unlisted string per column: longer than every listed one, so it is never listed
  for (const row of rows)
    row.forEach((cell, c) => {
      if (cell.ast)
        for (const p of probesOf(cell.ast, '')) if (typeof p.value === 'string') listed[c].add(p.value);
    });
  const unlisted = columns.map((col, c) => {
    let candidate = `other ${col.name}`;
    while (listed[c].has(candidate)) candidate += ' *';
    return candidate;
  });
  const cells = rows.map((row) =>
    row.map((cell, c) => ({
      text: cell.text,
      test: cell.test,
      usesNames: cell.usesNames,
      probes: cell.ast ? probesOf(cell.ast, unlisted[c]) : [],
      refs: cell.ast && cell.usesNames ? referencedPaths(cell.ast) : [],
    })),
  );
  const { facts: typedFacts } = factTypingOf(
    scope,
    columns.map((col) => col.type),
    cells.map((row) => row.map((cell) => cell.test)),
  );
  return { compiled, columns, rowIds: table.rows.map((r) => r.id), cells, unlisted, typedFacts };
}

/** The FEEL value of a JSON input for a column (undefined when the column's type refuses it). */
export function coerceFor(column: ModelColumn, value: unknown): unknown {
  try {
    return coerceInput(value, column.type, column.name);
  } catch {
    return undefined;
  }
}

/** The cell's verdict on the facts: true, false, or null (FEEL null: neither side). */
export function cellAccepts(
  model: TableModel,
  row: number,
  col: number,
  facts: Record<string, unknown>,
): boolean | null {
  const cell = model.cells[row][col];
  if (!cell.test) return true;
  const column = model.columns[col];
  const value = coerceFor(column, facts[column.name]);
  if (value === undefined) return null;
  let context: Record<string, unknown> | null = null;
  if (cell.usesNames) {
    // the engine's scope of a cell is the facts (names beyond the columns included), columns as bound
    context = { ...withTypedFacts(facts, model.typedFacts) };
    for (const other of model.columns) {
      const v = coerceFor(other, facts[other.name]);
      context[other.name] = v === undefined ? null : v;
    }
  }
  return cell.test.test(value, context);
}

/** A model built by buildTableModel (rather than a table definition). */
export function isTableModel(value: unknown): value is TableModel {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as TableModel).compiled instanceof CompiledDecisionTable
  );
}
