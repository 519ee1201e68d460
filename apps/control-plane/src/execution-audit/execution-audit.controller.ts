import { Policies, RequirePermissions, RequirePolicy } from '@arbiter/auth';
import { ControlPlanePermissions, METRICS_PERMISSION_NOTE } from '../shared';
import { ApiErrorFamily, ApiErrors, readPage } from '@arbiter/platform';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { BatchedExecutionAuditSink } from './batched-execution-audit.sink';
import { ExecutionAuditErrorFamily } from './execution-audit-errors';
import { decodeCursor, ExecutionAuditReader } from './execution-audit.reader';
import { ExecutionAuditPageView, ExecutionAuditSinkView } from './execution-audit.views';

export const AUDIT_PAGE = { defaultSize: 20, maxSize: 500 };

@ApiTags('execution audit')
@ApiErrorFamily(ExecutionAuditErrorFamily)
@Controller()
export class ExecutionAuditController {
  constructor(
    @Inject(ExecutionAuditReader) private readonly reader: ExecutionAuditReader,
    @Inject(BatchedExecutionAuditSink) private readonly sink: BatchedExecutionAuditSink,
  ) {}

  @Get('api/v1/audit/workflow/:workflowName')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: "A workflow's executions",
    description:
      "The tenant's executions of the workflow, newest first (entries recorded before the request are " +
      "included); page on with `before` = the previous page's `nextBefore`. 404 `RULESET_NOT_FOUND` for a " +
      'workflow the tenant has no rule set of.',
  })
  @ApiParam({ name: 'workflowName', description: 'The workflow name.', example: 'loan-approval' })
  @ApiQuery({
    name: 'pageSize',
    required: false,
    description: `Entries per page (default ${AUDIT_PAGE.defaultSize}, at most ${AUDIT_PAGE.maxSize}).`,
    schema: { type: 'integer', minimum: 1, maximum: AUDIT_PAGE.maxSize, default: AUDIT_PAGE.defaultSize },
  })
  @ApiQuery({
    name: 'before',
    required: false,
    description: '`nextBefore` of the previous page (400 `INVALID_CURSOR` otherwise).',
    schema: { type: 'string' },
  })
  @ApiOkResponse({ description: 'A page of executions', type: ExecutionAuditPageView })
  @ApiErrors(400, 404)
  list(@Param('workflowName') workflowName: string, @Query() query: Record<string, string | undefined>) {
    const { pageSize } = readPage({ pageSize: query.pageSize }, AUDIT_PAGE);
    const before = query.before ? decodeCursor(query.before) : undefined;
    return this.reader.page(workflowName, pageSize, before);
  }

  @Get('api/v1/control-plane/execution-audit/metrics')
  @RequirePermissions(ControlPlanePermissions.Metrics)
  @ApiOperation({
    summary: 'Execution audit sink metrics of this node',
    description:
      'What the batched audit sink buffered, wrote, spilled and replayed since the node started. ' +
      METRICS_PERMISSION_NOTE,
  })
  @ApiOkResponse({ description: 'The counts and gauges', type: ExecutionAuditSinkView })
  metrics(): ExecutionAuditSinkView {
    return this.sink.snapshot();
  }
}
