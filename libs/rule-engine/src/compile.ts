/**
 * Compiles a decision table once into an evaluator: inputs resolved to column slots, every cell
 * compiled through @arbiter/feel, literal and range cells indexed (see matcher.ts), output rows
 * prebuilt and frozen. Evaluation allocates only its result.
 */
import {
  CompiledExpression,
  CompiledUnaryTests,
  EvaluationAborted,
  EvaluationContext,
  STEP_BUDGET,
  Scope,
  compileExpression,
  compileUnaryTests,
  currentEvaluation,
  enterEvaluation,
  fromJs,
  leaveEvaluation,
  toJs,
} from '@arbiter/feel';
import { CellShape } from './cell-shape';
import {
  DEFAULT_LIMITS,
  NormalizedOutputExpression,
  NormalizedTable,
  TableLimits,
  normalizeDefinition,
  normalizeDefinitionSliced,
} from './definition';
import { EvaluationError, TableCompileError } from './errors';
import {
  HIT_POLICY_VIOLATED,
  MatchedRules,
  aggregate,
  aggregationOf,
  comparePriority,
  isSingleHit,
  noMatchValue,
  orderRules,
  outputRank,
  selectRule,
} from './hit-policy';
import { FactTyping, factTypingSteps, withTypedFacts } from './fact-types';
import { coerceInput, outputFits } from './input-types';
import { RowMatcher, RowMatcherParts, rowMatcherSteps } from './matcher';
import { JSON_VALUES } from './output-values';
import { isInheritedName, own, setOwn } from './own';
import { ColumnType, EvaluationResult, HitPolicy, OutputRow } from './types';
import { runSliced, runToEnd, STEP_EVERY, Steps } from './yielding';

type Input = Record<string, unknown>;

const NO_RANKS = new Int32Array(0);

export interface CompileOptions {
  limits?: TableLimits;
  /**
   * FEEL steps (loop iterations, user-function calls, …) one evaluation of the table may take, all its
   * cells and computed columns together (default STEP_BUDGET). Past it the evaluation throws
   * `EVALUATION_BUDGET_EXCEEDED`.
   */
  maxSteps?: number;
}

export class CompiledDecisionTable {
  readonly hitPolicy: HitPolicy;
  readonly rowCount: number;
  private readonly names: string[];
  private readonly types: ColumnType[];
  private readonly required: boolean[];
  private readonly expressions: (CompiledExpression | null)[];
  private readonly values: unknown[];
  private readonly rowIds: string[];
  private readonly outputRows: OutputRow[];
  private readonly outputNames: string[];
  private readonly tests: (CompiledUnaryTests | null)[][];
  private readonly cells: string[][];
  private readonly priorityKeys: Int32Array[];
  private readonly rowPriority: number[];
  private readonly defaults: Record<string, unknown> | null;
  /** an input column is named like a member of Object.prototype: inputs are read as own properties only */
  private readonly inheritedNames: boolean;
  /**
   * Per input column, the JS type its values are taken as they are (`string`, `number`, `boolean`
   * columns), else null (converted by `coerceInput`); `directBind`: every column is read from the facts
   * by name (no computed column, no inherited name), so `bind` takes its short path.
   */
  private readonly jsTypes: (string | null)[];
  private readonly directBind: boolean;
  /** per row, the outputs computed by FEEL expressions when the row matches (null: constants only) */
  /** (null when no row has any: no per-row array for the common table) */
  private readonly outputExpressions: (NormalizedOutputExpression[] | null)[] | null;
  /** some row computes an output: results are built per evaluation (`computedRow`) */
  private readonly dynamic: boolean;
  private readonly outputTypes: ColumnType[];
  /** whether the hit policy ranks rows by output value lists (Priority, OutputOrder) */
  private readonly ranked: boolean;
  private readonly matcher: RowMatcher<Input>;
  /** the rows as the hit policies see them: outputs, and ranks by output value lists then row priority */
  private readonly rules: MatchedRules;
  /** one output column of the matched rows, reused by every aggregation */
  private readonly column: unknown[];
  readonly shapes: CellShape[][];
  /** FEEL steps one evaluation may take */
  private readonly maxSteps: number;
  /**
   * Whether an evaluation may run FEEL beyond the index: an opaque cell, a computed input column or an
   * output expression. Cells the index decides (literals, ranges, comparisons with constants) are
   * evaluated without FEEL, or, on the index's rare fallback, with FEEL that cannot loop.
   */
  private readonly runsFeel: boolean;
  /** facts the cells read that JSON cannot type: read as their column's type (fact-types.ts) */
  private readonly typing: FactTyping;
  /**
   * The FEEL evaluation context of this table's evaluations, restarted by each (no allocation): one step
   * budget and deadline for every cell and computed column of one evaluation.
   */
  private readonly budget = new EvaluationContext(null);

  /**
   * The normalised table, lean: each row keeps only the compiled FEEL of its opaque cells (the index
   * decides the others). Keeping every cell's compiled FEEL (AST + closures) made a compiled 100-row
   * table weigh ~600 KiB instead of tens of KiB.
   */
  readonly table: NormalizedTable;

  /** `prebuilt`: the per-row parts built beforehand (`compileDecisionTableSliced`), else built here. */
  constructor(table: NormalizedTable, maxSteps: number = STEP_BUDGET, prebuilt?: TableParts) {
    this.maxSteps = maxSteps;
    this.hitPolicy = table.hitPolicy;
    this.rowCount = table.rows.length;
    this.names = table.inputs.map((i) => i.name);
    this.types = table.inputs.map((i) => i.type);
    this.required = table.inputs.map((i) => i.required);
    this.expressions = table.inputs.map((i) =>
      i.expression ? compileExpression(i.expression, { scope: this.names }) : null,
    );
    this.values = new Array(this.names.length).fill(null);
    this.outputNames = table.outputs.map((o) => o.name);
    const parts = prebuilt ?? runToEnd(tableSteps(table));
    this.rowIds = parts.rowIds;
    this.cells = parts.cells;
    this.shapes = parts.shapes;
    this.tests = parts.tests;
    this.inheritedNames = this.names.some(isInheritedName);
    this.jsTypes = this.types.map((t) => (t === 'string' || t === 'number' || t === 'boolean' ? t : null));
    this.directBind = !this.inheritedNames && this.expressions.every((e) => e === null);
    this.typing = parts.typing;
    this.outputTypes = table.outputs.map((o) => o.type);
    this.dynamic = parts.dynamic;
    this.outputExpressions = this.dynamic
      ? table.rows.map((r) => (r.expressions?.length ? r.expressions : null))
      : null;
    this.runsFeel = this.dynamic || this.expressions.some((e) => e !== null) || parts.opaque;
    this.outputRows = parts.outputRows;
    this.table = { ...table, rows: parts.rows };
    this.rowPriority = parts.rowPriority;
    this.ranked = parts.ranked;
    this.priorityKeys = parts.priorityKeys;
    this.column = new Array(this.rowCount).fill(null);
    this.rules = rankedRules(this.outputRows, this.priorityKeys, this.rowPriority);
    const hasDefaults = table.outputs.some((o) => o.defaultValue !== undefined);
    this.defaults = hasDefaults
      ? Object.freeze(Object.fromEntries(table.outputs.map((o) => [o.name, o.defaultValue ?? null])))
      : null;
    this.matcher = new RowMatcher<Input>(this.shapes, this.names.length, this.testCell, parts.matcher);
  }

  /** The facts of the evaluation in progress as a FEEL scope, made once per evaluation (`factsScope`). */
  private scopeFacts: Input | null = null;
  private scopeOfFacts: Scope | null = null;

  private factsScope(input: Input): Scope {
    // keyed by the facts object: an evaluation nested in this one (with other facts) cannot mix them up
    if (this.scopeFacts !== input) {
      this.scopeFacts = input;
      this.scopeOfFacts = new Scope(this.typedScope(input), null);
    }
    return this.scopeOfFacts!;
  }

  /** The facts as the cells read them: typed facts and read temporal columns as values (fact-types.ts). */
  private typedScope(input: Input): Input {
    const { facts, columns } = this.typing;
    if (facts.length === 0 && columns.length === 0) return input;
    let scope = withTypedFacts(input, facts);
    if (columns.length) {
      if (scope === input) scope = { ...input };
      for (const c of columns) setOwn(scope, this.names[c], this.values[c]);
    }
    return scope;
  }

  private readonly testCell = (row: number, column: number, value: unknown, input: Input): boolean | null => {
    let test = this.tests[row][column];
    if (!test)
      test = this.tests[row][column] = compileUnaryTests(this.cells[row][column], { scope: this.names });
    // part of the evaluation in progress (see `evaluate`): its budget, its deadline
    return test.testIn(value, this.factsScope(input));
  };

  /** Reads, checks and converts the inputs into the reused value slots. */
  private bind(input: Input): void {
    // a typed scope copies values bound here: made again for each evaluation, even of the same object
    if (this.typing.facts.length || this.typing.columns.length) this.scopeFacts = null;
    if (this.directBind) {
      // the same checks and values as below, a plain value of its column's type taken as it is
      for (let c = 0; c < this.names.length; c++) {
        const raw = input[this.names[c]];
        if (raw === undefined || raw === null) {
          if (this.required[c]) throw missingInput(this.names[c]);
          this.values[c] = null;
        } else if (typeof raw === this.jsTypes[c] && (typeof raw !== 'number' || Number.isFinite(raw)))
          this.values[c] = raw;
        else this.values[c] = coerceInput(raw, this.types[c], this.names[c]);
      }
      return;
    }
    let feelInput: Input | undefined; // the input as FEEL values, converted once for every computed column
    for (let c = 0; c < this.names.length; c++) {
      const expr = this.expressions[c];
      let raw: unknown;
      if (expr !== null) {
        const v = expr.evaluateIn(new Scope((feelInput ??= fromJs(input) as Input), null));
        this.values[c] = v;
        if (v === null && this.required[c])
          throw new EvaluationError(
            'MISSING_REQUIRED_INPUT',
            `Required input '${this.names[c]}' is missing`,
            this.names[c],
          );
        continue;
      } else raw = this.inheritedNames ? own(input, this.names[c]) : input[this.names[c]];
      if ((raw === undefined || raw === null) && this.required[c])
        throw new EvaluationError(
          'MISSING_REQUIRED_INPUT',
          `Required input '${this.names[c]}' is missing`,
          this.names[c],
        );
      this.values[c] = coerceInput(raw, this.types[c], this.names[c]);
    }
  }

  /**
   * Evaluates the table (spec: evaluation result without `evaluationTimeMs`). Throws EvaluationError,
   * also when the evaluation's FEEL runs out of its step budget (`EVALUATION_BUDGET_EXCEEDED`) or past
   * `deadline` (epoch ms; `DEADLINE_EXCEEDED`). Inside a bounded evaluation of a host (a flow, a rule
   * set) the table is part of it: it spends the host's budget and keeps the host's deadline.
   */
  evaluate(input: Input | null | undefined, deadline: number = Infinity): EvaluationResult {
    // a table whose every cell the index decides runs no FEEL that loops: nothing to bound
    if (!this.runsFeel) return this.run(input ?? {});
    const outer = currentEvaluation();
    if (outer !== null && outer.bounded) return this.run(input ?? {});
    return this.runBounded(input ?? {}, deadline, outer);
  }

  private runBounded(input: Input, deadline: number, outer: EvaluationContext | null): EvaluationResult {
    enterEvaluation(this.budget.restart(this.maxSteps, deadline));
    // leave on each path rather than in `finally`: V8 optimises this shape better on a hot path
    let result: EvaluationResult;
    try {
      result = this.run(input);
    } catch (e) {
      leaveEvaluation(outer);
      throw e instanceof EvaluationAborted ? abortError(e) : e;
    }
    leaveEvaluation(outer);
    return result;
  }

  private run(facts: Input): EvaluationResult {
    this.bind(facts);
    const policy = this.hitPolicy;
    if (policy === 'First') {
      const r = this.matcher.first(this.values, facts);
      if (r < 0) return this.noMatch();
      const row = this.dynamic ? this.computedRow(r, facts) : this.outputRows[r];
      return { matchedRows: [row.rowId], outputRows: [row], outputValues: row.outputs };
    }
    const { rows, count } = this.matcher.collect(this.values, facts);
    if (count === 0) return this.noMatch();
    const matchedRows = new Array<string>(count);
    for (let i = 0; i < count; i++) matchedRows[i] = this.rowIds[rows[i]];
    if (!this.dynamic) return this.result(matchedRows, rows, count, this.outputRows, this.rules);
    // outputs computed by FEEL: the matched rows' outputs first, then the hit policy over them
    const computed = new Array<OutputRow>(this.rowCount);
    for (let i = 0; i < count; i++) computed[rows[i]] = this.computedRow(rows[i], facts);
    const keys = this.ranked
      ? (r: number) => this.ranksOf(computed[r].outputs)
      : (r: number) => this.priorityKeys[r];
    const rules = rankedRules(computed, keys, this.rowPriority);
    return this.result(matchedRows, rows, count, computed, rules);
  }

  /** The hit policy's result over the matched rows (`byRow`: the output row of each row index). */
  private result(
    matchedRows: string[],
    rows: Int32Array,
    count: number,
    byRow: OutputRow[],
    rules: MatchedRules,
  ): EvaluationResult {
    const policy = this.hitPolicy;
    if (isSingleHit(policy)) {
      const r = selectRule(policy, rows, count, rules, JSON_VALUES);
      if (r === HIT_POLICY_VIOLATED) throw this.violation(matchedRows);
      const row = byRow[r];
      return { matchedRows, outputRows: [row], outputValues: row.outputs };
    }
    const agg = aggregationOf(policy);
    if (!agg) return this.multi(matchedRows, orderRules(policy, rows, count, rules), count, byRow);
    const outputRows = new Array<OutputRow>(count);
    for (let i = 0; i < count; i++) outputRows[i] = byRow[rows[i]];
    const outputValues: Record<string, unknown> = {};
    const column = this.column; // scratch: aggregate reads it synchronously and calls no user code
    for (const name of this.outputNames) {
      for (let i = 0; i < count; i++) column[i] = outputRows[i].outputs[name];
      setOwn(outputValues, name, aggregate(agg, column, count, JSON_VALUES));
    }
    return { matchedRows, outputRows, outputValues };
  }

  /**
   * Row `r`'s outputs with its output expressions evaluated (part of the evaluation in progress: its
   * budget and deadline). An expression sees the input columns by name (their bound values) and the
   * input facts; a value that does not fit the column's type is null, as DMN has it.
   */
  private computedRow(r: number, facts: Input): OutputRow {
    const base = this.outputRows[r];
    const expressions = this.outputExpressions![r];
    if (expressions === null) return base;
    const columns: Record<string, unknown> = {};
    for (let c = 0; c < this.names.length; c++) setOwn(columns, this.names[c], this.values[c]);
    const scope = new Scope(columns, new Scope(fromJs(facts) as Input, null));
    const outputs: Record<string, unknown> = {};
    for (const name of this.outputNames) setOwn(outputs, name, base.outputs[name]);
    for (const { name, expression } of expressions) {
      const value = toJs(expression.evaluateIn(scope));
      const type = this.outputTypes[this.outputNames.indexOf(name)];
      setOwn(outputs, name, outputFits(value, type) ? value : null);
    }
    return { rowId: base.rowId, outputs };
  }

  /** Priority / OutputOrder ranks of a row's outputs in the columns' output value lists. */
  private ranksOf(outputs: Record<string, unknown>): Int32Array {
    return Int32Array.from(
      this.table.outputs.map((o) => outputRank(o.outputValues, outputs[o.name], JSON_VALUES)),
    );
  }

  private violation(matchedRows: string[]): EvaluationError {
    const message =
      this.hitPolicy === 'Unique'
        ? `Hit policy Unique: ${matchedRows.length} rules match (${matchedRows.join(', ')})`
        : `Hit policy Any: matching rules ${matchedRows.join(', ')} have different outputs`;
    return new EvaluationError('HIT_POLICY_VIOLATION', message, undefined, matchedRows);
  }

  /** The execute form: `{ matchedRows, outputs }`. */
  execute(
    facts: Input | null | undefined,
    deadline?: number,
  ): {
    matchedRows: string[];
    outputs: Record<string, unknown> | null;
  } {
    const r = this.evaluate(facts, deadline);
    return { matchedRows: r.matchedRows, outputs: r.outputValues };
  }

  private multi(
    matchedRows: string[],
    rows: ArrayLike<number>,
    count: number,
    byRow: OutputRow[],
  ): EvaluationResult {
    const outputRows = new Array<OutputRow>(count);
    const outputValues: Record<string, unknown[]> = {};
    for (const name of this.outputNames) setOwn(outputValues, name, new Array(count));
    for (let i = 0; i < count; i++) {
      const row = (outputRows[i] = byRow[rows[i]]);
      for (const name of this.outputNames) outputValues[name][i] = row.outputs[name];
    }
    return { matchedRows, outputRows, outputValues };
  }

  private noMatch(): EvaluationResult {
    if (this.defaults) return { matchedRows: [], outputRows: [], outputValues: this.defaults };
    if (isSingleHit(this.hitPolicy)) return { matchedRows: [], outputRows: [], outputValues: null };
    const outputValues: Record<string, unknown> = {};
    for (const name of this.outputNames) setOwn(outputValues, name, noMatchValue(this.hitPolicy));
    return { matchedRows: [], outputRows: [], outputValues };
  }
}

function missingInput(name: string): EvaluationError {
  return new EvaluationError('MISSING_REQUIRED_INPUT', `Required input '${name}' is missing`, name);
}

/** A budget or deadline abort as the table's error (a call-depth abort never propagates: it gives null). */
function abortError(e: EvaluationAborted): EvaluationError {
  return e.reason === 'deadline'
    ? new EvaluationError('DEADLINE_EXCEEDED', 'The evaluation ran past its time limit')
    : new EvaluationError(
        'EVALUATION_BUDGET_EXCEEDED',
        'The evaluation ran out of its FEEL step budget (loop iterations and function calls)',
      );
}

/**
 * The rows as the hit policies see them: a smaller output value rank wins, then a higher row priority.
 * Built outside the constructor so its closures do not keep the constructor's scope (the full
 * normalised table with every cell's compiled FEEL) alive.
 */
function rankedRules(
  outputRows: OutputRow[],
  priorityKeys: Int32Array[] | ((row: number) => Int32Array),
  rowPriority: number[],
): MatchedRules {
  const keys = typeof priorityKeys === 'function' ? priorityKeys : (r: number) => priorityKeys[r];
  return {
    output: (r) => outputRows[r].outputs,
    compareRank: (a, b) => comparePriority(keys(a), keys(b)) || rowPriority[b] - rowPriority[a],
  };
}

/** Compiles a table definition; throws TableCompileError naming row and column on any problem. */
export function compileDecisionTable(
  definition: unknown,
  options: CompileOptions = {},
): CompiledDecisionTable {
  const { table, problems } = normalizeDefinition(definition, options.limits ?? DEFAULT_LIMITS);
  if (!table) throw new TableCompileError(problems);
  return new CompiledDecisionTable(table, options.maxSteps);
}

/**
 * `compileDecisionTable` in slices of the event loop (SLICE_MS each, see yielding.ts): reading the cells,
 * the per-row parts and each column's index are built in steps, so compiling a 100,000-row table after
 * its save holds no other request. The same code as the one-go compile; the result is the same table.
 */
export async function compileDecisionTableSliced(
  definition: unknown,
  options: CompileOptions = {},
): Promise<CompiledDecisionTable> {
  const { table, problems } = await normalizeDefinitionSliced(definition, options.limits ?? DEFAULT_LIMITS);
  if (!table) throw new TableCompileError(problems);
  const parts = await runSliced(tableSteps(table));
  return new CompiledDecisionTable(table, options.maxSteps, parts);
}

/** What a compiled table keeps per row, and its index: built in steps (see `compileDecisionTableSliced`). */
export interface TableParts {
  rowIds: string[];
  cells: string[][];
  shapes: CellShape[][];
  tests: (CompiledUnaryTests | null)[][];
  outputRows: OutputRow[];
  /** the normalised rows, lean: compiled FEEL only for opaque cells, outputs as frozen */
  rows: NormalizedTable['rows'];
  rowPriority: number[];
  ranked: boolean;
  priorityKeys: Int32Array[];
  matcher: RowMatcherParts;
  /** some row computes an output (`expressions`) */
  dynamic: boolean;
  /** some cell is opaque (its FEEL runs at evaluation) */
  opaque: boolean;
  typing: FactTyping;
}

function* tableSteps(table: NormalizedTable): Steps<TableParts> {
  const n = table.rows.length;
  const outputNames = table.outputs.map((o) => o.name);
  // output-value ranks, only where a hit policy orders by them and a column lists output values
  const ranked =
    (table.hitPolicy === 'Priority' || table.hitPolicy === 'OutputOrder') &&
    table.outputs.some((o) => o.outputValues);
  const parts: TableParts = {
    rowIds: new Array(n),
    cells: new Array(n),
    shapes: new Array(n),
    tests: new Array(n),
    outputRows: new Array(n),
    rows: new Array(n),
    rowPriority: new Array(n),
    ranked,
    priorityKeys: new Array(n),
    matcher: undefined as unknown as RowMatcherParts,
    dynamic: false,
    opaque: false,
    typing: undefined as unknown as FactTyping,
  };
  for (let i = 0; i < n; i++) {
    const r = table.rows[i];
    parts.rowIds[i] = r.id;
    const cells = (parts.cells[i] = r.cells.slice()); // exact size (built by push)
    const shapes = (parts.shapes[i] = r.shapes);
    // keep compiled FEEL only where the index cannot decide (others compile again on a rare fallback)
    const tests = (parts.tests[i] = r.tests.map((t, c) => (shapes[c].kind === 'opaque' ? t : null)));
    if (!parts.opaque && shapes.some((cell) => cell.kind === 'opaque')) parts.opaque = true;
    if (r.expressions?.length) parts.dynamic = true;
    const outputs: Record<string, unknown> = {};
    for (const name of outputNames) setOwn(outputs, name, own(r.outputs, name) ?? null);
    const outputRow = (parts.outputRows[i] = Object.freeze({
      rowId: r.id,
      outputs: Object.freeze(outputs),
    }));
    parts.rows[i] = { ...r, cells, tests, outputs: outputRow.outputs as Record<string, unknown> };
    parts.rowPriority[i] = r.priority;
    parts.priorityKeys[i] = ranked
      ? Int32Array.from(table.outputs.map((o) => outputRank(o.outputValues, outputs[o.name], JSON_VALUES)))
      : NO_RANKS;
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
  }
  yield;
  parts.typing = yield* factTypingSteps(
    table.inputs.map((i) => i.name),
    table.inputs.map((i) => i.type),
    parts.tests,
  );
  parts.matcher = yield* rowMatcherSteps(parts.shapes, table.inputs.length);
  return parts;
}
