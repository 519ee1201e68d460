import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

/** Any JSON value, `null` included. */
const ANY = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: {} },
    { type: 'object', additionalProperties: true, nullable: true },
  ],
} as never;

export class EventWindowConfigView {
  @ApiProperty({ example: 'failed-logins' }) Id!: string;
  @ApiProperty({ example: 'Failed logins' }) Name!: string;
  @ApiProperty({ enum: ['Sliding', 'Tumbling', 'Session'], example: 'Sliding' }) WindowType!: string;
  @ApiProperty({ description: 'ISO 8601 duration.', example: 'PT10M' }) WindowSize!: string;
  @ApiProperty({ description: 'ISO 8601 duration.', example: 'PT1H' }) TimeToLive!: string;
  @ApiProperty({ example: 'userId' }) CorrelationKey!: string;
  @ApiProperty({ example: 'tenant-a' }) TenantId!: string;
  @ApiProperty({ description: 'ISO 8601 duration.', example: 'PT0S' }) AllowedLateness!: string;
  @ApiProperty({ type: 'string', nullable: true, example: null }) ValuePath!: string | null;
  @ApiProperty({ type: [String], example: ['count', 'sum'] }) Aggregates!: string[];
  @ApiProperty({ enum: ['OnUpdate', 'OnClose'], example: 'OnUpdate' }) EmitMode!: string;
  @ApiProperty({ description: 'Increases with every save.', example: 1 }) Version!: number;
  @ApiProperty({ format: 'date-time' }) CreatedAt!: string;
  @ApiProperty({ format: 'date-time' }) ModifiedAt!: string;
}

export class AggregatesView {
  @ApiPropertyOptional({ example: 3 }) count?: number;
  @ApiPropertyOptional({ example: 12.5 }) sum?: number;
  @ApiPropertyOptional({ type: 'number', nullable: true }) avg?: number | null;
  @ApiPropertyOptional({ type: 'number', nullable: true }) min?: number | null;
  @ApiPropertyOptional({ type: 'number', nullable: true }) max?: number | null;
  @ApiPropertyOptional() distinctCount?: number;
  @ApiPropertyOptional(ANY) first?: unknown;
  @ApiPropertyOptional(ANY) last?: unknown;
}

export class WindowEventView {
  @ApiProperty({ format: 'date-time' }) Timestamp!: string;
  @ApiProperty(ANY) Value!: unknown;
}

export class WindowView {
  @ApiProperty({ example: 'user-42' }) Key!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'Sliding: exclusive (the window is (Start, End]); tumbling and session: inclusive.',
  })
  Start!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'Sliding: the event time; tumbling and session: exclusive.',
  })
  End!: string;
  @ApiProperty({ description: 'Events in the window.', example: 3 }) Count!: number;
  @ApiProperty({ type: AggregatesView }) Aggregates!: AggregatesView;
  @ApiPropertyOptional({
    type: [WindowEventView],
    description: 'The most recent events of the window, oldest first.',
  })
  Events?: WindowEventView[];
  @ApiPropertyOptional({ description: 'Events of the window not listed in `Events`.', example: 0 })
  Truncated?: number;
}

export class EventResultView {
  @ApiProperty({ description: 'Position of the event in the batch.', example: 0 }) Index!: number;
  @ApiProperty({ example: 'user-42' }) Key!: string;
  @ApiProperty({ format: 'date-time' }) Timestamp!: string;
  @ApiProperty({
    enum: ['Accepted', 'Late', 'Forwarded'],
    description:
      "`Late`: behind the key's watermark by more than `AllowedLateness`, counted and not merged. `Forwarded` " +
      '(ingest only): the key belongs to a partition another replica holds.',
  })
  Status!: string;
  @ApiPropertyOptional({
    type: WindowView,
    description: 'With `EmitMode` `OnUpdate`: the window the event fell into.',
  })
  Window?: WindowView;
}

export class BatchResultView {
  @ApiProperty({ type: [EventResultView] }) Results!: EventResultView[];
  @ApiProperty({ type: [WindowView], description: 'Tumbling and session windows closed during the batch.' })
  Closed!: WindowView[];
  @ApiProperty({ example: 3 }) Processed!: number;
  @ApiProperty({ example: 3 }) Accepted!: number;
  @ApiProperty({ example: 0 }) Late!: number;
  @ApiProperty({
    description: 'Events that left memory: slid out, closed, or of an expired key.',
    example: 0,
  })
  Evicted!: number;
  @ApiPropertyOptional({
    description: 'Ingest only: events sent to the replica owning their partition.',
    example: 0,
  })
  Forwarded?: number;
}

@ApiExtraModels(WindowView)
export class KeyWindowView {
  @ApiProperty({ example: 'failed-logins' }) ConfigId!: string;
  @ApiProperty({ example: 'user-42' }) Key!: string;
  @ApiProperty({
    description: 'Partition of the key (FNV-1a hash modulo `EventWindows:Partitions`).',
    example: 3,
  })
  Partition!: number;
  @ApiProperty({
    description:
      'Whether the replica that received the request holds the partition; when false the window was read from ' +
      'the replica that does (NATS request/reply).',
  })
  Owned!: boolean;
  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(WindowView) }, { type: 'object', nullable: true, maxProperties: 0 }],
    description: "The key's current window; null when it holds nothing.",
  } as never)
  Window!: WindowView | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The window as rule input facts: `{ window: { key, start, end, count, <aggregates> } }` (zeros and nulls ' +
      'when empty), so a rule or decision table reads `window.count`.',
    example: { window: { key: 'user-42', count: 6, sum: 6 } },
  })
  Facts!: Record<string, unknown>;
}
