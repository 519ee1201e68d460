import { ApiErrorFamily, ApiErrors } from '@arbiter/platform';
import type { Facts } from '@arbiter/rule-engine';
import { Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { WORKFLOW_NAME } from '../shared';
import { ExecutionErrorFamily } from './execution-errors';
import { ExecutionResultView } from './execution.views';

/** The longest `correlationId` and `bucketKey` `parseExecuteBody` accepts. */
const MAX_KEY_LENGTH = 256;

/**
 * The body of `POST /api/v1/rule-engine/execute/{workflowName}` as `parseExecuteBody` reads it (the hot
 * route validates by hand, without Nest's pipe): a JSON object; `facts` (else `inputs`, else `{}`) a JSON
 * object; `correlationId` and `bucketKey` strings of at most 256 characters, or null; `trace` a boolean.
 * Documentation only: no request is ever validated against this class.
 */
/** The execute body's `window`: which event-window configuration, keyed by which fact. */
export class ExecuteWindowReference {
  @ApiProperty({
    type: 'string',
    pattern: '^[A-Za-z0-9_-]{1,100}$',
    description: 'Id of the event-window configuration (decisions `/api/v1/rule-engine/cep/{id}`).',
    example: 'failed-logins',
  })
  configId!: string;

  @ApiProperty({
    type: 'string',
    description: 'Name or dot path of the fact holding the correlation key (a string or a number).',
    example: 'userId',
  })
  keyFact!: string;
}

export class ExecuteRequestBody {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The facts to evaluate (default `{}`).',
    example: { amount: 5000, applicant: { age: 42, country: 'DE' } },
  })
  facts?: Facts;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Another name of `facts`, read when `facts` is absent.',
  })
  inputs?: Facts;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: MAX_KEY_LENGTH,
    nullable: true,
    description: "Correlation id of the call, recorded in the execution audit (default: the request's).",
    example: 'order-7731',
  })
  correlationId?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: MAX_KEY_LENGTH,
    nullable: true,
    description:
      'Stable key that places the call in a percentage canary (default: the `x-bucket-key` header, then the tenant).',
    example: 'customer-1842',
  })
  bucketKey?: string | null;

  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description: 'Answer with per-rule (or per-node) `traces`.',
  })
  trace?: boolean;

  @ApiPropertyOptional({
    type: ExecuteWindowReference,
    description:
      'Event-window facts: the control plane reads the live window of `facts.<keyFact>` in the event-window ' +
      'configuration `configId` from the decisions service and adds it as the fact `window` ' +
      '(`window.count`, `window.sum`, `window.avg`, `window.min`, `window.max`, `window.distinctCount`, ' +
      '`window.first`, `window.last`, `window.key`, `window.start`, `window.end`). Absent: no read.',
  })
  window?: ExecuteWindowReference | null;
}

/**
 * Documentation only: `POST /api/v1/rule-engine/execute/{workflowName}` is served in front of Nest by
 * `ExecuteHotRoute` (`execute.route.ts`). This controller is never routed (it is listed in
 * `openApi.unroutedControllers` of the service, not in a module) and its method never runs; it gives the
 * route its place in the OpenAPI document.
 */
@ApiTags('execution')
@ApiErrorFamily(ExecutionErrorFamily)
@Controller('api/v1/rule-engine/execute')
export class ExecuteRouteDocumentation {
  @Post(':workflowName')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'executeWorkflow',
    summary: 'Execute a workflow',
    description:
      "Runs the workflow's active version on the facts — or, for a canary target, the canary version; the " +
      'execution router mode decides between rules and the traditional path, and in Shadow mode a candidate ' +
      'version runs afterwards without side effects. Checked first: the tenant quota (429 with `Retry-After`), ' +
      'then the rule set (404 when the workflow or an active version is missing). Failures while the rules ' +
      'run are reported in `errors` with status `error` (HTTP 200). Every execution is recorded in the ' +
      'execution audit. Any authenticated caller (no operator policy).',
  })
  @ApiParam({
    name: 'workflowName',
    description: 'The workflow to run.',
    schema: { type: 'string', pattern: WORKFLOW_NAME.source },
    example: 'loan-approval',
  })
  @ApiHeader({
    name: 'x-bucket-key',
    required: false,
    description:
      'Stable key for percentage canaries when the body gives no `bucketKey` (first 256 characters).',
  })
  @ApiBody({
    type: ExecuteRequestBody,
    examples: {
      facts: { summary: 'Facts only', value: { facts: { amount: 5000 } } },
      traced: {
        summary: 'With a correlation id and traces',
        value: { facts: { amount: 5000 }, correlationId: 'order-7731', trace: true },
      },
    },
  })
  @ApiOkResponse({
    description: 'The execution result (also when the rules reported errors: status `error`)',
    type: ExecutionResultView,
  })
  @ApiErrors(404, 422, 429, 503)
  execute(): never {
    throw new Error('Documentation only: the route is served by ExecuteHotRoute');
  }
}
