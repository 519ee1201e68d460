import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ANY_JSON_VALUE, INSTANT } from '../shared';
import type { ExecutionAuditCounts } from './execution-audit.metrics';
import type { ExecutionAuditItem } from './execution-audit.reader';
import type { ExecutionArm, ShadowDifference, ShadowDiffRecord } from './execution-record';

const SEVERITIES: ShadowDifference['severity'][] = ['none', 'medium', 'high'];
const EXECUTION_ARMS: ExecutionArm[] = ['active', 'canary', 'traditional'];
const MODES: ExecutionAuditItem['mode'][] = ['Traditional', 'Rules', 'Hybrid', 'Shadow'];

/** One output field that differs between the active and the candidate version (spec 1). */
export class ShadowDifferenceView implements ShadowDifference {
  @ApiProperty({ description: 'Dotted path of the output fact.', example: 'tier' })
  field!: string;

  @ApiPropertyOptional({
    ...ANY_JSON_VALUE,
    description: "The active version's value (absent when it has none).",
  })
  activeValue!: unknown;

  @ApiPropertyOptional({
    ...ANY_JSON_VALUE,
    description: "The candidate version's value (absent when it has none).",
  })
  candidateValue!: unknown;

  @ApiProperty({
    enum: SEVERITIES,
    description:
      '`medium`: numbers within 5 % or the same field count; `high`: boolean logic differs or a critical field is missing.',
  })
  severity!: ShadowDifference['severity'];
}

/** The Shadow mode comparison of an execution (spec 1, `shadowDiff`). */
export class ShadowDiffView implements ShadowDiffRecord {
  @ApiProperty({ type: 'integer', example: 5 })
  candidateVersion!: number;

  @ApiProperty({ enum: SEVERITIES, description: 'The worst severity of the differences (`none`: equal).' })
  severity!: ShadowDiffRecord['severity'];

  @ApiProperty({ type: ShadowDifferenceView, isArray: true })
  differences!: ShadowDifferenceView[];

  @ApiPropertyOptional({ type: 'number', description: 'With the `ExecutionTime` comparison strategy.' })
  activeExecutionTimeMs?: number;

  @ApiPropertyOptional({ type: 'number', description: 'With the `ExecutionTime` comparison strategy.' })
  candidateExecutionTimeMs?: number;

  @ApiPropertyOptional({
    type: 'string',
    isArray: true,
    description: "Error codes of the candidate's run, when it reported errors.",
  })
  candidateErrors?: string[];
}

/** One execution (spec 1, "Execution audit entry"). */
export class ExecutionAuditItemView implements ExecutionAuditItem {
  @ApiProperty({ format: 'uuid', example: '01934f6e-2b7c-7a1d-9f3e-5c2a8b4d6e10' })
  executionId!: string;

  @ApiProperty({ example: 'loan-approval' })
  workflowName!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The version that served the client (null on the traditional path).',
    example: 4,
  })
  version!: number | null;

  @ApiProperty({ example: 'order-7731' })
  correlationId!: string;

  @ApiProperty({ example: 'acme' })
  tenantId!: string;

  @ApiProperty(INSTANT)
  executedAt!: string;

  @ApiProperty({ type: 'number', minimum: 0, example: 0.184 })
  executionTimeMs!: number;

  @ApiProperty({ type: 'string', isArray: true, example: ['Big amount'] })
  rulesMatched!: string[];

  @ApiProperty({ enum: ['success', 'error'] })
  status!: ExecutionAuditItem['status'];

  @ApiProperty({
    type: 'string',
    isArray: true,
    description: 'Error codes of the execution, when it failed.',
  })
  errorCodes!: string[];

  @ApiProperty({ enum: EXECUTION_ARMS })
  arm!: ExecutionArm;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The running canary rollout.' })
  rolloutId!: string | null;

  @ApiProperty({ enum: MODES })
  mode!: ExecutionAuditItem['mode'];

  @ApiPropertyOptional({ type: ShadowDiffView, description: 'Shadow mode only.' })
  shadowDiff?: ShadowDiffView;
}

/** `{ items, nextBefore }`, newest first. */
export class ExecutionAuditPageView {
  @ApiProperty({ type: ExecutionAuditItemView, isArray: true })
  items!: ExecutionAuditItemView[];

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Cursor of the next (older) page, for `before`; null on the last page.',
  })
  nextBefore!: string | null;
}

/** The batched audit sink of this node since it started. */
export class ExecutionAuditSinkView implements ExecutionAuditCounts {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Accepted into the in-memory buffer.' })
  buffered!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Inserted into the database by the flusher.' })
  written!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Written to a spill file (database unavailable).',
  })
  spilled!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Inserted into the database from spill files.' })
  replayed!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Already stored when written again.' })
  duplicates!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Refused by the database for their content.' })
  rejected!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Batch writes that failed and were retried.' })
  failedBatches!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Entries waiting in memory.' })
  bufferSize!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Executions waiting for room in the buffer.' })
  waiting!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  bufferCapacity!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  consecutiveFailures!: number;

  @ApiProperty({ description: 'Where entries are spilled while the database is unavailable.' })
  spillDirectory!: string;
}
