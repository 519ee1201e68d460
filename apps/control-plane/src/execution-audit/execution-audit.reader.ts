import { AppError } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { assertWorkflowName } from '../shared';
import { RuleSetQueries } from '../rulesets';
import { BatchedExecutionAuditSink } from './batched-execution-audit.sink';
import { ExecutionAuditErrors } from './execution-audit-errors';
import { AuditCursor, ExecutionAuditRepository } from './execution-audit.repository';
import { ArmStatistics, ExecutionAuditQueries, ExecutionRecord } from './execution-record';

/** How long a read waits for entries recorded before it to be written (read-your-writes). */
const SETTLE_MS = 1_000;

/** One entry of `GET /api/v1/audit/workflow/{workflowName}` (spec 1, "Execution audit entry"). */
export type ExecutionAuditItem = Omit<ExecutionRecord, 'shadowDiff'> & {
  shadowDiff?: ExecutionRecord['shadowDiff'];
};

export function encodeCursor(record: ExecutionRecord): string {
  return Buffer.from(JSON.stringify([record.executedAt, record.executionId])).toString('base64url');
}

export function decodeCursor(raw: string): AuditCursor {
  try {
    const [executedAt, executionId] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (isUUID(executionId) && !Number.isNaN(Date.parse(executedAt))) return { executedAt, executionId };
  } catch {
    // reported below
  }
  throw AppError.badRequest(
    ExecutionAuditErrors.InvalidCursor,
    'before must be a nextBefore value of a previous page',
    [{ field: 'before', message: 'not a cursor of this list' }],
  );
}

/** The read side: the workflow audit list and the canary arm statistics (current tenant). */
@Injectable()
export class ExecutionAuditReader extends ExecutionAuditQueries {
  constructor(
    @Inject(ExecutionAuditRepository) private readonly repository: ExecutionAuditRepository,
    @Inject(BatchedExecutionAuditSink) private readonly sink: BatchedExecutionAuditSink,
    @Inject(RuleSetQueries) private readonly ruleSets: RuleSetQueries,
  ) {
    super();
  }

  async page(workflowName: string, pageSize: number, before?: AuditCursor) {
    assertWorkflowName(workflowName);
    await this.sink.settle(SETTLE_MS);
    const rows = await this.repository.page(workflowName, pageSize + 1, before);
    const items = rows.slice(0, pageSize);
    // no execution yet: an existing workflow's empty list, or 404 for a workflow the tenant does not have
    if (rows.length === 0 && !before && !(await this.ruleSets.exists(workflowName)))
      throw AppError.notFound(ExecutionAuditErrors.WorkflowNotFound, `Workflow '${workflowName}' not found`);
    return {
      items: items.map(({ shadowDiff, ...rest }): ExecutionAuditItem =>
        shadowDiff ? { ...rest, shadowDiff } : rest,
      ),
      nextBefore: rows.length > pageSize ? encodeCursor(items[items.length - 1]) : null,
    };
  }

  async armStatistics(workflowName: string, rolloutId: string): Promise<ArmStatistics[]> {
    await this.sink.settle(SETTLE_MS);
    return this.repository.armStatistics(workflowName, rolloutId);
  }
}
