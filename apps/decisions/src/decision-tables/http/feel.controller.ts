import { ApiErrorFamily, ApiErrors } from '@arbiter/platform';
import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TableFeelService } from '../application/table-feel.service';
import { DecisionTableErrorFamily } from '../errors';
import { FeelAutocompleteDto, FeelEvaluateDto, FeelValidateDto } from './dto';
import { ApiTableIdParam } from './openapi-parts';
import { FeelEvaluationView, FeelSuggestionsView, FeelValidationView } from './views';
import { RequireDecisionsAccess } from '../../auth';

/** FEEL helpers for the table editor: validate, evaluate with sample input, autocomplete. */
@ApiTags('decision tables: FEEL')
@ApiErrorFamily(DecisionTableErrorFamily)
@RequireDecisionsAccess('viewer')
@Controller('api/v1/decision-tables')
export class FeelController {
  constructor(@Inject(TableFeelService) private readonly feel: TableFeelService) {}

  /** 200 `{ valid, message }`; the table's input columns are in scope besides `rowContext`. */
  @Post(':id/feel/validate-expression')
  @HttpCode(200)
  @ApiOperation({
    summary: "Check a FEEL expression against the table's names",
    description:
      "The table's input columns and the facts its computed columns read are in scope, with `rowContext`. An " +
      'invalid expression is an answer (`valid: false`), not an error.',
  })
  @ApiTableIdParam()
  @ApiOkResponse({ type: FeelValidationView })
  @ApiErrors(404)
  validateExpression(@Param('id') id: string, @Body() body: FeelValidateDto) {
    return this.feel.validateExpression(id, body.expression, body.rowContext ?? {});
  }

  /** 200 `{ expression, result, warnings }`; 422 INVALID_FEEL on a syntax error. */
  @Post(':id/feel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Evaluate a FEEL expression with sample input',
    description: 'A syntax error is 422 `INVALID_FEEL` (its line and column in `details`).',
  })
  @ApiTableIdParam()
  @ApiOkResponse({ type: FeelEvaluationView })
  @ApiErrors(404, 422)
  evaluate(@Param('id') id: string, @Body() body: FeelEvaluateDto) {
    return this.feel.evaluate(id, body.expression, body.input ?? {});
  }

  /** 200 `{ suggestions: [{ label, kind, detail?, insertText, from }] }`. */
  @Post('feel-autocomplete')
  @HttpCode(200)
  @ApiOperation({ summary: 'Suggest names, functions and keywords at the cursor (at most 50)' })
  @ApiOkResponse({ type: FeelSuggestionsView })
  @ApiErrors(404)
  autocomplete(@Body() body: FeelAutocompleteDto) {
    return this.feel.autocomplete(body.expression, body.cursor, body.variables ?? [], body.tableId);
  }
}
