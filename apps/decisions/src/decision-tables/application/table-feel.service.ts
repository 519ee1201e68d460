import {
  builtins,
  fromJs,
  parse,
  suggest,
  toJs,
  tryCompileExpression,
  validate,
  type Node,
} from '@arbiter/feel';
import { AppError } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { DecisionTableErrors as E } from '../errors';
import { DecisionTableAuthoringService } from './decision-table-authoring.service';

/**
 * FEEL helpers of the table editor: validate an expression, evaluate it with sample input, autocomplete.
 * A table's input columns (and the facts its computed columns read) are in scope.
 */
@Injectable()
export class TableFeelService {
  constructor(
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
  ) {}

  /**
   * What an expression of this table may use: the input column names and, for computed columns
   * (`expression`), the names their expressions read (the facts the caller sends, e.g. `income` for
   * a column `monthly` = `income / 12`).
   */
  private async columns(id: string): Promise<Record<string, string>> {
    const table = await this.tables.get(id);
    const scope: Record<string, string> = {};
    for (const c of table.inputColumns) scope[c.name] = c.type ?? 'any';
    const names = Object.keys(scope);
    for (const c of table.inputColumns)
      if (c.expression)
        for (const fact of namesIn(c.expression, names)) if (!(fact in scope)) scope[fact] = 'any';
    return scope;
  }

  /** Input facts plus the values of computed columns the caller did not give (as evaluation binds them). */
  private async withComputed(id: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const table = await this.tables.get(id);
    const computed = table.inputColumns.filter((c) => c.expression && !(c.name in input));
    if (computed.length === 0) return input;
    const names = table.inputColumns.map((c) => c.name);
    const facts = fromJs(input) as Record<string, unknown>;
    const values: Record<string, unknown> = {};
    for (const c of computed) {
      const r = tryCompileExpression(c.expression!, { scope: [...names, ...Object.keys(input)] });
      if (r.ok) values[c.name] = toJs(r.value.evaluate(facts) as never);
    }
    return { ...input, ...values };
  }

  /** `{ valid, message }` (with line and column when invalid); `rowContext` adds names and types. */
  async validateExpression(id: string, expression: string, rowContext: Record<string, string>) {
    const context = { ...(await this.columns(id)), ...rowContext };
    const r = validate(expression, context);
    return { valid: r.valid, message: r.message, ...(r.line ? { line: r.line, column: r.column } : {}) };
  }

  /** `{ expression, result, warnings }`; 422 INVALID_FEEL on a syntax error. */
  async evaluate(id: string, expression: string, sample: Record<string, unknown>) {
    const names = Object.keys(await this.columns(id));
    const input = await this.withComputed(id, sample);
    const compiled = tryCompileExpression(expression, { scope: [...names, ...Object.keys(input)] });
    if (!compiled.ok)
      throw AppError.unprocessable(E.InvalidFeel, compiled.error.message, [
        { field: 'expression', message: `line ${compiled.error.line}, column ${compiled.error.column}` },
      ]);
    const r = compiled.value.evaluateDetailed(fromJs(input) as Record<string, unknown>);
    return { expression, result: toJs(r.value), warnings: r.warnings };
  }

  /** At most 50 suggestions at `cursor` (default: the end); `variables` and the table's names in scope. */
  async autocomplete(expression: string, cursor: number | undefined, variables: string[], tableId?: string) {
    const names = [...variables, ...(tableId ? Object.keys(await this.columns(tableId)) : [])];
    const at = typeof cursor === 'number' ? cursor : expression.length;
    return { suggestions: suggest(expression, at, names).slice(0, 50) };
  }
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
