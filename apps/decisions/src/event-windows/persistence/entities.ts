import { Column, Entity, PrimaryColumn, ValueTransformer } from 'typeorm';

/** bigint columns (durations in ms can pass 2^31) read back as numbers, not strings. */
const bigintNumber: ValueTransformer = {
  to: (value: number | null) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

/** One event-window configuration of a tenant. Row-level security on tenant_id; ids are per tenant. */
@Entity({ name: 'event_window_configs' })
export class EventWindowConfigEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'window_type', type: 'text' })
  windowType!: string;

  @Column({ name: 'window_size_ms', type: 'bigint', transformer: bigintNumber })
  windowSizeMs!: number;

  @Column({ name: 'time_to_live_ms', type: 'bigint', transformer: bigintNumber })
  timeToLiveMs!: number;

  @Column({ name: 'allowed_lateness_ms', type: 'bigint', transformer: bigintNumber })
  allowedLatenessMs!: number;

  @Column({ name: 'correlation_key', type: 'text' })
  correlationKey!: string;

  @Column({ name: 'value_path', type: 'text', nullable: true })
  valuePath!: string | null;

  @Column({ type: 'jsonb' })
  aggregates!: string[];

  @Column({ name: 'emit_mode', type: 'text' })
  emitMode!: string;

  @Column({ type: 'int' })
  version!: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'modified_at', type: 'timestamptz' })
  modifiedAt!: Date;
}

export const EVENT_WINDOW_ENTITIES = [EventWindowConfigEntity];
