/**
 * Structural checks of a table definition (the API's JSON), one problem per bad row/column, and the
 * normalised form the compiler works on. Every cell goes through the FEEL compiler here.
 */
import {
  CompiledExpression,
  CompiledUnaryTests,
  tryCompileExpression,
  tryCompileUnaryTests,
} from '@arbiter/feel';
import { CellShape, fastCellShape, shapeOfAst } from './cell-shape';
import { normalizeHitPolicy } from './hit-policy';
import { normalizeColumnType, outputFits } from './input-types';
import { own } from './own';
import { ColumnType, HitPolicy, TableProblem } from './types';
import { runSliced, runToEnd, Steps, STEP_EVERY } from './yielding';

export interface TableLimits {
  maxRows: number;
  maxColumns: number;
  maxCellLength: number;
}

export const DEFAULT_LIMITS: TableLimits = { maxRows: 100_000, maxColumns: 100, maxCellLength: 10_000 };

export interface NormalizedInput {
  name: string;
  type: ColumnType;
  required: boolean;
  expression?: string;
}
export interface NormalizedOutput {
  name: string;
  type: ColumnType;
  defaultValue?: unknown;
  outputValues?: unknown[];
}
/** An output a row computes with FEEL when it matches (`outputExpressions` of the definition). */
export interface NormalizedOutputExpression {
  name: string;
  source: string;
  expression: CompiledExpression;
}
export interface NormalizedRow {
  id: string;
  priority: number;
  cells: string[];
  /** compiled FEEL of each cell; null for `-` and for cells read without FEEL (see `shapes`) */
  tests: (CompiledUnaryTests | null)[];
  /** what each cell means (`opaque`: only its compiled FEEL in `tests` can tell) */
  shapes: CellShape[];
  outputs: Record<string, unknown>;
  /** outputs computed by FEEL expressions (absent or empty: constants only) */
  expressions?: NormalizedOutputExpression[];
}
export interface NormalizedTable {
  name: string;
  hitPolicy: HitPolicy;
  inputs: NormalizedInput[];
  outputs: NormalizedOutput[];
  rows: NormalizedRow[];
}

const ANY_SHAPE: CellShape = Object.freeze({ kind: 'any' as const });
/** distinct cell texts remembered while reading one table (a table of unique cells does not grow it past this) */
const MAX_KNOWN_CELLS = 50_000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export interface Normalized {
  table: NormalizedTable | null;
  problems: TableProblem[];
}

/** Reads and checks a definition. `table` is null when a problem prevents building it. */
export function normalizeDefinition(def: unknown, limits: TableLimits = DEFAULT_LIMITS): Normalized {
  return runToEnd(normalizeSteps(def, limits));
}

/** `normalizeDefinition` in slices of the event loop (`runSliced`): a 100,000-row table holds nobody. */
export function normalizeDefinitionSliced(
  def: unknown,
  limits: TableLimits = DEFAULT_LIMITS,
): Promise<Normalized> {
  return runSliced(normalizeSteps(def, limits));
}

/** normalizeDefinition as steps: a pause every STEP_EVERY rows. */
function* normalizeSteps(def: unknown, limits: TableLimits): Steps<Normalized> {
  const problems: TableProblem[] = [];
  const problem = (message: string, rowId: string | null = null, column: string | null = null) =>
    problems.push({ rowId, column, message });
  if (!isObject(def)) {
    problem('A table definition must be an object');
    return { table: null, problems };
  }
  const name = typeof def.name === 'string' ? def.name.trim() : '';
  if (!name) problem('name is required');
  const hitPolicy = normalizeHitPolicy(def.hitPolicy);
  if (!hitPolicy) problem(`hitPolicy '${String(def.hitPolicy)}' is not supported`);

  const columns = <T>(key: string, read: (c: Record<string, unknown>, i: number) => T | null): T[] => {
    const raw = def[key];
    if (!Array.isArray(raw)) {
      problem(`${key} must be an array`);
      return [];
    }
    if (raw.length > limits.maxColumns) problem(`${key} has more than ${limits.maxColumns} columns`);
    const seen = new Set<string>();
    const out: T[] = [];
    raw.slice(0, limits.maxColumns).forEach((c, i) => {
      if (!isObject(c) || typeof c.name !== 'string' || !c.name.trim()) {
        problem(`${key}[${i}] needs a non-empty name`);
        return;
      }
      if (seen.has(c.name)) problem(`Duplicate column name '${c.name}'`, null, c.name);
      seen.add(c.name);
      const col = read(c, i);
      if (col) out.push(col);
    });
    return out;
  };
  const inputs = columns<NormalizedInput>('inputColumns', (c) => {
    const type = normalizeColumnType(c.type);
    if (!type) problem(`Unknown column type '${String(c.type)}'`, null, c.name as string);
    if (c.required !== undefined && typeof c.required !== 'boolean')
      problem('required must be a boolean', null, c.name as string);
    if (c.expression !== undefined && typeof c.expression !== 'string')
      problem('expression must be a string', null, c.name as string);
    return {
      name: c.name as string,
      type: type ?? 'any',
      required: c.required === true,
      ...(typeof c.expression === 'string' && c.expression.trim() ? { expression: c.expression } : {}),
    };
  });
  // a computed column's expression is FEEL over the facts and the other columns: compiled here, so a bad
  // one is a problem naming its column (not a failure later, when the table is compiled)
  const inputScope = inputs.map((i) => i.name);
  for (const input of inputs) {
    if (input.expression === undefined) continue;
    if (input.expression.length > limits.maxCellLength) {
      problem(`Expression longer than ${limits.maxCellLength} characters`, null, input.name);
      continue;
    }
    const compiled = tryCompileExpression(input.expression, { scope: inputScope });
    if (!compiled.ok)
      problem(
        `Invalid FEEL expression '${input.expression.slice(0, 80)}': ${compiled.error.message}`,
        null,
        input.name,
      );
  }
  const outputs = columns<NormalizedOutput>('outputColumns', (c) => {
    const type = normalizeColumnType(c.type);
    if (!type) problem(`Unknown column type '${String(c.type)}'`, null, c.name as string);
    if (c.outputValues !== undefined && !Array.isArray(c.outputValues))
      problem('outputValues must be an array', null, c.name as string);
    if (c.defaultValue !== undefined && type && !outputFits(c.defaultValue, type))
      problem(`defaultValue does not match type ${type}`, null, c.name as string);
    return {
      name: c.name as string,
      type: type ?? 'any',
      ...(c.defaultValue !== undefined ? { defaultValue: c.defaultValue } : {}),
      ...(Array.isArray(c.outputValues) ? { outputValues: c.outputValues } : {}),
    };
  });
  if (Array.isArray(def.outputColumns) && def.outputColumns.length === 0)
    problem('outputColumns needs at least one column');

  const rows: NormalizedRow[] = [];
  if (!Array.isArray(def.rows)) problem('rows must be an array');
  else if (def.rows.length > limits.maxRows) problem(`A table may have at most ${limits.maxRows} rows`);
  else {
    const inputNames = new Set(inputs.map((i) => i.name));
    const outputByName = new Map(outputs.map((o) => [o.name, o]));
    const scope = inputs.map((i) => i.name);
    const ids = new Set<string>();
    // a cell's text → its meaning: a table repeats its cells (`"NL"`, `true`, `>= 18`), each is read once
    const known = new Map<string, { shape: CellShape; test: CompiledUnaryTests | null; error?: string }>();
    const read = (text: string) => {
      let entry = known.get(text);
      if (entry) return entry;
      const fast = fastCellShape(text);
      if (fast) entry = { shape: fast, test: null };
      else {
        const compiled = tryCompileUnaryTests(text, { scope });
        entry = compiled.ok
          ? { shape: shapeOfAst(compiled.value.ast), test: compiled.value }
          : { shape: ANY_SHAPE, test: null, error: compiled.error.message };
      }
      if (known.size < MAX_KNOWN_CELLS) known.set(text, entry);
      return entry;
    };
    const readRow = (raw: unknown, index: number) => {
      let rowId = `row-${index + 1}`;
      if (!isObject(raw)) {
        problem('A row must be an object', rowId);
        return;
      }
      if (raw.id !== undefined && raw.id !== null) {
        if (typeof raw.id !== 'string' || !raw.id.trim()) problem('Row id must be a non-empty string', rowId);
        else rowId = raw.id;
      }
      if (ids.has(rowId)) problem(`Duplicate row id '${rowId}'`, rowId);
      ids.add(rowId);
      if (raw.priority !== undefined && raw.priority !== null && !Number.isInteger(raw.priority))
        problem('priority must be an integer', rowId);
      const conditions = raw.inputConditions ?? {};
      const outs = raw.outputs ?? {};
      if (!isObject(conditions)) problem('inputConditions must be an object', rowId);
      if (!isObject(outs)) problem('outputs must be an object', rowId);
      if (!isObject(conditions) || !isObject(outs)) return;
      for (const key of Object.keys(conditions))
        if (!inputNames.has(key)) problem(`Unknown input column '${key}'`, rowId, key);
      for (const key of Object.keys(outs))
        if (!outputByName.has(key)) problem(`Unknown output column '${key}'`, rowId, key);
      const cells: string[] = [];
      const tests: (CompiledUnaryTests | null)[] = [];
      const shapes: CellShape[] = [];
      for (const input of inputs) {
        const cell = own(conditions, input.name);
        if (cell === undefined || cell === null) {
          cells.push('-');
          tests.push(null);
          shapes.push(ANY_SHAPE);
          continue;
        }
        if (typeof cell !== 'string') {
          problem('A condition must be a FEEL unary test string', rowId, input.name);
          cells.push('-');
          tests.push(null);
          shapes.push(ANY_SHAPE);
          continue;
        }
        if (cell.length > limits.maxCellLength) {
          problem(`Condition longer than ${limits.maxCellLength} characters`, rowId, input.name);
          cells.push('-');
          tests.push(null);
          shapes.push(ANY_SHAPE);
          continue;
        }
        const text = cell.trim() === '' ? '-' : cell;
        const entry = text === '-' ? null : read(text);
        if (entry?.error !== undefined)
          problem(`Invalid FEEL unary test '${text.slice(0, 80)}': ${entry.error}`, rowId, input.name);
        cells.push(text);
        tests.push(entry ? entry.test : null);
        shapes.push(entry ? entry.shape : ANY_SHAPE);
      }
      for (const [key, value] of Object.entries(outs)) {
        const col = outputByName.get(key);
        if (col && !outputFits(value, col.type))
          problem(`Output does not match type ${col.type}`, rowId, key);
      }
      const expressions: NormalizedOutputExpression[] = [];
      const computed = raw.outputExpressions;
      if (computed !== undefined && computed !== null) {
        if (!isObject(computed))
          problem('outputExpressions must be an object of output column name to FEEL expression', rowId);
        else
          for (const [key, source] of Object.entries(computed)) {
            if (!outputByName.has(key)) problem(`Unknown output column '${key}'`, rowId, key);
            else if (Object.hasOwn(outs, key))
              problem(`Output '${key}' has both a value and an expression`, rowId, key);
            else if (typeof source !== 'string' || !source.trim())
              problem('An output expression must be a non-empty FEEL expression string', rowId, key);
            else if (source.length > limits.maxCellLength)
              problem(`Output expression longer than ${limits.maxCellLength} characters`, rowId, key);
            else {
              const compiled = tryCompileExpression(source, { scope });
              if (compiled.ok) expressions.push({ name: key, source, expression: compiled.value });
              else
                problem(
                  `Invalid FEEL output expression '${source.slice(0, 80)}': ${compiled.error.message}`,
                  rowId,
                  key,
                );
            }
          }
      }
      rows.push({
        id: rowId,
        priority: typeof raw.priority === 'number' ? raw.priority : 0,
        cells,
        tests,
        shapes,
        outputs: outs,
        ...(expressions.length ? { expressions } : {}),
      });
    };
    const raws = def.rows as unknown[];
    for (let index = 0; index < raws.length; index++) {
      readRow(raws[index], index);
      if (index % STEP_EVERY === STEP_EVERY - 1) yield;
    }
  }
  if (problems.length || !hitPolicy) return { table: null, problems };
  return { table: { name, hitPolicy, inputs, outputs, rows }, problems };
}
