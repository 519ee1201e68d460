import { AppError } from '@arbiter/platform';
import { fromJs, suggest, toJs, tryCompileExpression, validate } from '@arbiter/feel';
import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DecisionTablesService } from '../application/decision-tables.service';
import { DecisionTableErrors as E } from '../application/errors';
import { FeelAutocompleteDto, FeelEvaluateDto, FeelValidateDto } from './dto';

/** FEEL helpers for the table editor: validate, evaluate with sample input, autocomplete. */
@ApiTags('decision tables: FEEL')
@Controller('api/v1/decision-tables')
export class FeelController {
  constructor(@Inject(DecisionTablesService) private readonly tables: DecisionTablesService) {}

  private async columns(id: string): Promise<Record<string, string>> {
    const table = await this.tables.get(id);
    return Object.fromEntries(table.inputColumns.map((c) => [c.name, c.type ?? 'any']));
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
    const input = body.input ?? {};
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
