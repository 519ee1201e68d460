import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { TableFeelService } from '../application/table-feel.service';
import { FeelAutocompleteDto, FeelEvaluateDto, FeelValidateDto } from './dto';

/** FEEL helpers for the table editor: validate, evaluate with sample input, autocomplete. */
@ApiTags('decision tables: FEEL')
@Controller('api/v1/decision-tables')
export class FeelController {
  constructor(@Inject(TableFeelService) private readonly feel: TableFeelService) {}

  /** 200 `{ valid, message }`; the table's input columns are in scope besides `rowContext`. */
  @Post(':id/feel/validate-expression')
  @HttpCode(200)
  validateExpression(@Param('id') id: string, @Body() body: FeelValidateDto) {
    return this.feel.validateExpression(id, body.expression, body.rowContext ?? {});
  }

  /** 200 `{ expression, result, warnings }`; 422 INVALID_FEEL on a syntax error. */
  @Post(':id/feel')
  @HttpCode(200)
  evaluate(@Param('id') id: string, @Body() body: FeelEvaluateDto) {
    return this.feel.evaluate(id, body.expression, body.input ?? {});
  }

  /** 200 `{ suggestions: [{ label, kind, detail?, insertText, from }] }`. */
  @Post('feel-autocomplete')
  @HttpCode(200)
  autocomplete(@Body() body: FeelAutocompleteDto) {
    return this.feel.autocomplete(body.expression, body.cursor, body.variables ?? [], body.tableId);
  }
}
