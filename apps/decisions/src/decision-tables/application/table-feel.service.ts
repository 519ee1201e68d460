import {
  builtins,
  EvaluationAborted,
  fromJs,
  parse,
  runEvaluation,
  Scope,
  suggest,
  toJs,
  tryCompileExpression,
  validate,
  type Node,
} from '@arbiter/feel';
import { AppError } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { DecisionTablesSettings } from '../../settings';
import { DecisionTableErrors as E } from '../errors';
import { DecisionTableAuthoringService } from './decision-table-authoring.service';
import type { DecisionTableView } from './table-model';

/**
 * FEEL helpers of the table editor: validate an expression, evaluate it with sample input, autocomplete.
 * A table's input columns (and the facts its computed columns read) are in scope.
 */
@Injectable()
export class TableFeelService {
  constructor(
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
    @Inject(DecisionTablesSettings) private readonly settings: DecisionTablesSettings,
  ) {}

  /**
   * What an expression of this table may use: the input column names and, for computed columns
   * (`expression`), the names their expressions read (the facts the caller sends, e.g. `income` for
   * a column `monthly` = `income / 12`).
   */
  private async columns(id: string): Promise<Record<string, string>> {
    return columnsOf(await this.tables.get(id));
  }

  /**
   * Input facts plus the values of computed columns the caller did not give (as evaluation binds them).
   * Part of the evaluation in progress: its step budget and deadline.
   */
  private withComputed(table: DecisionTableView, input: Record<string, unknown>): Record<string, unknown> {
    const computed = table.inputColumns.filter((c) => c.expression && !Object.hasOwn(input, c.name));
    if (computed.length === 0) return input;
    const names = table.inputColumns.map((c) => c.name);
    const facts = new Scope(fromJs(input) as Record<string, unknown>, null);
    const values: Record<string, unknown> = {};
    for (const c of computed) {
      const r = tryCompileExpression(c.expression!, { scope: [...names, ...Object.keys(input)] });
      if (r.ok)
        Object.defineProperty(values, c.name, { value: toJs(r.value.evaluateIn(facts)), enumerable: true });
    }
    return { ...input, ...values };
  }

  /** `{ valid, message }` (with line and column when invalid); `rowContext` adds names and types. */
  async validateExpression(id: string, expression: string, rowContext: Record<string, string>) {
    const context = { ...(await this.columns(id)), ...rowContext };
    const r = validate(expression, context);
    return { valid: r.valid, message: r.message, ...(r.line ? { line: r.line, column: r.column } : {}) };
  }

  /**
   * `{ expression, result, warnings }`; 422 INVALID_FEEL on a syntax error. One bounded evaluation (the
   * computed columns' values and the expression): 422 EVALUATION_BUDGET_EXCEEDED / DEADLINE_EXCEEDED past
   * `DecisionTables:EvaluationStepBudget` / `EvaluationTimeoutMs`.
   */
  async evaluate(id: string, expression: string, sample: Record<string, unknown>) {
    const table = await this.tables.get(id);
    const names = Object.keys(columnsOf(table));
    const warnings: string[] = [];
    const limits = {
      maxSteps: this.settings.evaluationStepBudget,
      deadline: Date.now() + this.settings.evaluationTimeoutMs,
    };
    try {
      return runEvaluation(
        warnings,
        () => {
          const input = this.withComputed(table, sample);
          const compiled = tryCompileExpression(expression, { scope: [...names, ...Object.keys(input)] });
          if (!compiled.ok)
            throw AppError.unprocessable(E.InvalidFeel, compiled.error.message, [
              {
                field: 'expression',
                message: `line ${compiled.error.line}, column ${compiled.error.column}`,
              },
            ]);
          warnings.length = 0; // only the expression's own warnings
          const value = compiled.value.evaluateIn(new Scope(fromJs(input) as Record<string, unknown>, null));
          return { expression, result: toJs(value), warnings };
        },
        limits,
      );
    } catch (e) {
      if (e instanceof EvaluationAborted && e.reason === 'steps')
        throw AppError.unprocessable(
          E.EvaluationBudgetExceeded,
          `The evaluation ran out of its FEEL step budget: more than ${limits.maxSteps} steps (DecisionTables:EvaluationStepBudget)`,
        );
      if (e instanceof EvaluationAborted && e.reason === 'deadline')
        throw AppError.unprocessable(
          E.DeadlineExceeded,
          `The evaluation ran past its time limit: more than ${this.settings.evaluationTimeoutMs} ms (DecisionTables:EvaluationTimeoutMs)`,
        );
      throw e;
    }
  }

  /** At most 50 suggestions at `cursor` (default: the end); `variables` and the table's names in scope. */
  async autocomplete(expression: string, cursor: number | undefined, variables: string[], tableId?: string) {
    const names = [...variables, ...(tableId ? Object.keys(await this.columns(tableId)) : [])];
    const at = typeof cursor === 'number' ? cursor : expression.length;
    return { suggestions: suggest(expression, at, names).slice(0, 50) };
  }
}

/**
 * What an expression of this table may use: the input column names and, for computed columns
 * (`expression`), the names their expressions read (the facts the caller sends, e.g. `income` for a
 * column `monthly` = `income / 12`). A map without a prototype: column names are user text.
 */
function columnsOf(table: DecisionTableView): Record<string, string> {
  const scope: Record<string, string> = Object.create(null);
  for (const c of table.inputColumns) scope[c.name] = c.type ?? 'any';
  const names = Object.keys(scope);
  for (const c of table.inputColumns)
    if (c.expression)
      for (const fact of namesIn(c.expression, names)) if (!(fact in scope)) scope[fact] = 'any';
  return scope;
}

/** Names an expression reads (variables; FEEL names may contain spaces, hence the scope). */
function namesIn(expression: string, scope: string[]): string[] {
  let ast: Node;
  try {
    ast = parse(expression, { scope });
  } catch {
    return [];
  }
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const n = node as { t?: string; name?: unknown };
    if (n.t === 'name' && typeof n.name === 'string' && !builtins.has(n.name)) found.add(n.name);
    for (const [key, value] of Object.entries(node)) if (key !== 'name') walk(value);
  };
  walk(ast);
  return [...found];
}
