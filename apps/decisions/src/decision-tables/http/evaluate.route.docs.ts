import { ApiErrorFamily, ApiErrors, ObjectField } from '@arbiter/platform';
import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DecisionTableErrorFamily } from '../errors';
import { ApiTableIdParam, ApiVersionQuery } from './openapi-parts';
import { EvaluationResultView } from './views';

/**
 * The body of `POST /api/v1/decision-tables/{id}/evaluate`. The hot route reads it itself (no DTO pipe):
 * `input` when the body is an object, and the evaluation service refuses an input that is not an object.
 */
export class EvaluateTableBody {
  @ObjectField({
    nullable: true,
    description:
      'The input facts: input column (or fact) name → value. Absent or null: no facts (a `required` column is ' +
      'then 400 `MISSING_REQUIRED_INPUT`); not an object: 400 `INVALID_INPUT`. Facts sent beside `input` ' +
      'instead of inside it are not read.',
    example: { age: 30, country: 'NL' },
  })
  input?: Record<string, unknown> | null;
}

/**
 * Documentation only: `POST /api/v1/decision-tables/{id}/evaluate` is served in front of Nest by
 * `EvaluateHotRoute` (evaluate.route.ts). This controller is never routed and its method never called; it is
 * listed in `openApi.unroutedControllers` (src/service.ts) so the operation is in the OpenAPI document like
 * every other route.
 */
@ApiTags('decision tables')
@ApiErrorFamily(DecisionTableErrorFamily)
@Controller('api/v1/decision-tables')
export class EvaluateRouteDocumentation {
  @Post(':id/evaluate')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'decisionTablesEvaluate',
    summary: 'Evaluate a table (latest version, or `version`) against input facts',
    description:
      'The hot path of the service. Matched rows and output values under the table hit policy: 400 ' +
      '`MISSING_REQUIRED_INPUT` or `INPUT_TYPE_MISMATCH` (naming the column in `details`) when an input does ' +
      'not fit its column, 422 `HIT_POLICY_VIOLATION` when the matches break a `Unique` or `Any` policy.',
  })
  @ApiTableIdParam()
  @ApiVersionQuery('Version to evaluate (default: the latest).')
  @ApiBody({
    type: EvaluateTableBody,
    required: false,
    examples: {
      input: {
        summary: 'Input facts of the sample table (age, country)',
        value: { input: { age: 30, country: 'NL' } },
      },
    },
  })
  @ApiOkResponse({
    type: EvaluationResultView,
    examples: {
      matched: {
        summary: 'Row r2 matched under the First hit policy',
        value: {
          matchedRows: ['r2'],
          outputRows: [{ rowId: 'r2', outputs: { risk: 'low' } }],
          outputValues: { risk: 'low' },
          evaluationTimeMs: 0.012,
        },
      },
    },
  })
  @ApiErrors(400, 404, 422)
  evaluate(): never {
    throw new Error('Documentation only: EvaluateHotRoute serves POST /api/v1/decision-tables/{id}/evaluate');
  }
}
