import { AppError } from '@arbiter/platform';
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
import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DecisionTableAuthoringService } from '../application/decision-table-authoring.service';
import { DecisionTableErrors as E } from '../errors';
import { FeelAutocompleteDto, FeelEvaluateDto, FeelValidateDto } from './dto';

/** FEEL helpers for the table editor: validate, evaluate with sample input, autocomplete. */
@ApiTags('decision tables: FEEL')
@Controller('api/v1/decision-tables')
export class FeelController {
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

  /** 200 `{ valid, message }`; the table's input columns are in scope besides `rowContext`. */
  @Post(':id/feel/validate-expression')
  @HttpCode(200)
  async validateExpression(@Param('id') id: string, @Body() body: FeelValidateDto) {
    const context = { ...(await this.columns(id)), ...(body.rowContext ?? {}) };
    const r = validate(body.expression, context);
    return { valid: r.valid, message: r.message, ...(r.line ? { line: r.line, column: r.column } : {}) };
  }

  /** 200 `{ expression, result, warnings }`; 422 INVALID_FEEL on a syntax error. */
  @Post(':id/feel')
  @HttpCode(200)
  async evaluate(@Param('id') id: string, @Body() body: FeelEvaluateDto) {
    const names = Object.keys(await this.columns(id));
    const input = await this.withComputed(id, body.input ?? {});
    const compiled = tryCompileExpression(body.expression, { scope: [...names, ...Object.keys(input)] });
    if (!compiled.ok)
      throw AppError.unprocessable(E.InvalidFeel, compiled.error.message, [
        { field: 'expression', message: `line ${compiled.error.line}, column ${compiled.error.column}` },
      ]);
    const r = compiled.value.evaluateDetailed(fromJs(input) as Record<string, unknown>);
    return { expression: body.expression, result: toJs(r.value), warnings: r.warnings };
  }

  /** 200 `{ suggestions: [{ label, kind, detail?, insertText, from }] }`. */
  @Post('feel-autocomplete')
  @HttpCode(200)
  async autocomplete(@Body() body: FeelAutocompleteDto) {
    const names = [
      ...(body.variables ?? []),
      ...(body.tableId ? Object.keys(await this.columns(body.tableId)) : []),
    ];
    const cursor = typeof body.cursor === 'number' ? body.cursor : body.expression.length;
    return { suggestions: suggest(body.expression, cursor, names).slice(0, 50) };
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
