import { AGGREGATES, EMIT_MODES, WINDOW_TYPES } from '@arbiter/event-windows';
import { ArrayField, EnumField, IntField, OpaqueJson, StringField } from '@arbiter/platform';
import { ApiProperty } from '@nestjs/swagger';
import { IsArray, IsOptional } from 'class-validator';

const DURATION_TEXT =
  'ISO 8601 (`PT10M`, `P1DT2H`, `PT0.5S`) or .NET `TimeSpan` text (`00:10:00`, `1.02:00:00`); anything else ' +
  'is a 400 `INVALID_DURATION` naming the field.';

/** `PUT /{id}`: the spec's fields (PascalCase as the spec names them) and ours (marked). */
export class EventWindowConfigBody {
  @StringField({
    minLength: 1,
    maxLength: 200,
    description: 'Name; configurations are listed by it.',
    example: 'Failed logins',
  })
  Name!: string;

  @EnumField(WINDOW_TYPES, {
    description: '`Sliding` and `Tumbling` (spec); `Session` (ours: an inactivity gap of `WindowSize`).',
    example: 'Sliding',
  })
  WindowType!: string;

  @StringField({
    maxLength: 40,
    description: `Window length (session: the inactivity gap). ${DURATION_TEXT}`,
    example: 'PT10M',
  })
  WindowSize!: string;

  @StringField({
    maxLength: 40,
    description: `How long a key's events are kept after its last one; at least \`WindowSize\`. ${DURATION_TEXT}`,
    example: '01:00:00',
  })
  TimeToLive!: string;

  @StringField({
    minLength: 1,
    maxLength: 200,
    description:
      'What groups events (for example `userId`): an event without `Key` takes its key from this field of ' +
      'its `Value`, and a rule reads the window of the fact of this name.',
    example: 'userId',
  })
  CorrelationKey!: string;

  @StringField({
    optional: true,
    description: "Owning tenant: the caller's; another value is a 400 `TENANT_MISMATCH`.",
    example: 'tenant-a',
  })
  TenantId?: string;

  @StringField({
    optional: true,
    maxLength: 40,
    description: `Ours: how far behind its key's watermark an event may arrive and still be merged (default 0). ${DURATION_TEXT}`,
    example: 'PT30S',
  })
  AllowedLateness?: string;

  @StringField({
    optional: true,
    maxLength: 200,
    pattern: /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/,
    description: 'Ours: dot path of the number aggregated inside `Value` (default: `Value` itself).',
    example: 'amount',
  })
  ValuePath?: string;

  @ArrayField('string', {
    optional: true,
    maxItems: AGGREGATES.length,
    description: `Ours: aggregates computed per window, of ${AGGREGATES.map((a) => `\`${a}\``).join(', ')} (default \`count\`, \`sum\`).`,
    example: ['count', 'sum', 'max'],
  })
  Aggregates?: string[];

  @EnumField(EMIT_MODES, {
    optional: true,
    description:
      'Ours: `OnUpdate` (default) reports the window of every event; `OnClose` reports tumbling and session ' +
      'windows once, when they close (not for sliding windows).',
    example: 'OnUpdate',
  })
  EmitMode?: string;
}

/** One event of a batch (documentation of the items; checked by the service, see `EventBatchBody`). */
export class EventBody {
  @ApiProperty({
    required: false,
    type: 'string',
    maxLength: 256,
    description: 'Correlation key (default: the `CorrelationKey` field of `Value`).',
    example: 'user-42',
  })
  Key?: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description: 'Event time, ISO 8601 with a zone (`Z` or an offset), years 0001–9999.',
    example: '2026-11-28T05:00:00Z',
  })
  Timestamp!: string;

  @ApiProperty({
    required: false,
    description: 'The event value: a number, or an object holding `ValuePath`.',
    example: 1,
    oneOf: [
      { type: 'number' },
      { type: 'string' },
      { type: 'boolean' },
      { type: 'array', items: {} },
      { type: 'object', additionalProperties: true, nullable: true },
    ],
  } as never)
  Value?: unknown;
}

/**
 * A batch of events. The items are checked by the service in one pass (400 `INVALID_TIMESTAMP` /
 * `INVALID_EVENT` naming `Events[i].<field>`), not by class-validator per object: a batch of 10,000 events
 * must be answered in well under 50 ms. More than `EventWindows:MaxBatchEvents` is a 413.
 */
export class EventBatchBody {
  @ApiProperty({ type: [EventBody], description: 'The events, in arrival order.' })
  @IsArray()
  @OpaqueJson('array') // handed over as sent (readBatch checks each item): no copy of 10,000 events
  Events!: unknown[];

  @StringField({
    optional: true,
    format: 'date-time',
    description:
      'Simulate only: advance the clock to this time after the batch (closes windows, expires keys).',
    example: '2026-11-28T06:00:00Z',
  })
  Now?: string;

  @IntField({
    optional: true,
    min: 0,
    max: 1000,
    description:
      'Simulate only: the most recent events of each window listed (default 3; more on request, up to ' +
      '`EventWindows:MaxContents`, default 100: a larger value is taken as that); the others are counted in ' +
      '`Truncated`, so `Count` = listed + `Truncated`.',
    example: 3,
  })
  @IsOptional()
  MaxContents?: number;
}
