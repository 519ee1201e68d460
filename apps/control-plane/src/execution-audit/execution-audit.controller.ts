import { Policies, RequirePolicy } from '@arbiter/auth';
import { readPage } from '@arbiter/platform';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { BatchedExecutionAuditSink } from './batched-execution-audit.sink';
import { decodeCursor, ExecutionAuditReader } from './execution-audit.reader';

export const AUDIT_PAGE = { defaultSize: 20, maxSize: 500 };

@ApiTags('execution audit')
@Controller()
export class ExecutionAuditController {
  constructor(
    @Inject(ExecutionAuditReader) private readonly reader: ExecutionAuditReader,
    @Inject(BatchedExecutionAuditSink) private readonly sink: BatchedExecutionAuditSink,
  ) {}

  @Get('api/v1/audit/workflow/:workflowName')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      '{ items: [{ executionId, workflowName, version, correlationId, tenantId, executedAt, executionTimeMs, rulesMatched, status, errorCodes, arm, rolloutId, mode, shadowDiff? }], nextBefore } newest first; query pageSize (default 20, max 500), before (nextBefore of the previous page)',
  })
  list(@Param('workflowName') workflowName: string, @Query() query: Record<string, string | undefined>) {
    const { pageSize } = readPage({ pageSize: query.pageSize }, AUDIT_PAGE);
    const before = query.before ? decodeCursor(query.before) : undefined;
    return this.reader.page(workflowName, pageSize, before);
  }

  @Get('api/v1/control-plane/execution-audit/metrics')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      '{ buffered, written, spilled, replayed, duplicates, rejected, failedBatches, bufferSize, waiting, bufferCapacity, consecutiveFailures, spillDirectory }',
  })
  metrics() {
    return this.sink.snapshot();
  }
}
