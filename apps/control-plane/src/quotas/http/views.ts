import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { INSTANT } from '../../shared';
import type { tenantQuotaView } from '../application/quotas.service';
import { LimitOverrides, QuotaLimits, Tier, TIERS } from '../domain/tiers';

const LIMIT = (description: string, example: number | null) =>
  ({
    type: 'integer',
    minimum: 0,
    nullable: true,
    description: `${description}; null: unlimited.`,
    example,
  }) as const;
const CONCURRENCY = 'Rule executions in flight at once, across every replica';
const PER_MINUTE = 'Rule evaluations per UTC minute';
const PER_DAY = 'Rule evaluations per UTC day';

/** The limits a tenant runs under (null: unlimited). */
export class QuotaLimitsView implements QuotaLimits {
  @ApiProperty(LIMIT(CONCURRENCY, 50))
  maxConcurrentExecutions!: number | null;

  @ApiProperty(LIMIT(PER_MINUTE, 60000))
  maxEvaluationsPerMinute!: number | null;

  @ApiProperty(LIMIT(PER_DAY, 10000000))
  maxEvaluationsPerDay!: number | null;
}

/** Explicit per-tenant limits: a limit that is present wins over the tier's preset. */
export class QuotaOverridesView implements LimitOverrides {
  @ApiPropertyOptional(LIMIT(CONCURRENCY, 80))
  maxConcurrentExecutions?: number | null;

  @ApiPropertyOptional(LIMIT(PER_MINUTE, 120000))
  maxEvaluationsPerMinute?: number | null;

  @ApiPropertyOptional(LIMIT(PER_DAY, null))
  maxEvaluationsPerDay?: number | null;
}

/** The spec's TenantQuota (fields ours): the tier, the effective limits, the preset and the overrides. */
export class TenantQuotaView extends QuotaLimitsView implements ReturnType<typeof tenantQuotaView> {
  @ApiProperty({ example: 'acme' })
  tenantId!: string;

  @ApiProperty({ enum: [...TIERS], example: 'Licensed' })
  tier!: Tier;

  @ApiProperty({ type: QuotaLimitsView, description: "The tier's preset profile." })
  preset!: QuotaLimitsView;

  @ApiProperty({ type: QuotaOverridesView, description: 'The explicit limits over the preset.' })
  overrides!: QuotaOverridesView;

  @ApiProperty({ ...INSTANT, nullable: true, description: 'Null while the tenant has no record of its own.' })
  updatedAt!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'alice' })
  updatedBy!: string | null;
}

/** One evaluation window (a fixed UTC minute or day). */
export class QuotaWindowView {
  @ApiProperty({ type: 'integer', minimum: 0, example: 1250 })
  used!: number;

  @ApiProperty({ type: 'integer', minimum: 0, nullable: true, example: 60000 })
  limit!: number | null;

  @ApiProperty({ type: 'integer', minimum: 0, nullable: true, example: 58750 })
  remaining!: number | null;

  @ApiProperty({ ...INSTANT, description: 'When the window ends.' })
  resetsAt!: string;
}

export class QuotaEvaluationsView {
  @ApiProperty({ type: QuotaWindowView })
  minute!: QuotaWindowView;

  @ApiProperty({ type: QuotaWindowView })
  day!: QuotaWindowView;
}

export class QuotaConcurrencyView {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Slots in use, as the live leases reported at their last renewal.',
    example: 3,
  })
  inUse!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Slots leased by the replicas.', example: 8 })
  leased!: number;

  @ApiProperty({ type: 'integer', minimum: 0, nullable: true, example: 50 })
  limit!: number | null;
}

/** The spec's QuotaUsage (fields ours): counts of the current UTC minute and day, concurrency in use. */
export class QuotaUsageView {
  @ApiProperty({ example: 'acme' })
  tenantId!: string;

  @ApiProperty({ enum: [...TIERS], example: 'Licensed' })
  tier!: Tier;

  @ApiProperty({ type: QuotaEvaluationsView })
  evaluations!: QuotaEvaluationsView;

  @ApiProperty({ type: QuotaConcurrencyView })
  concurrency!: QuotaConcurrencyView;
}
