import { IntField } from '@arbiter/platform';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';
import { TIERS } from '../domain/tiers';

const MAX_EVALUATIONS = Number.MAX_SAFE_INTEGER;
const MAX_CONCURRENCY = 1_000_000;

/**
 * `PUT …/quotas/limits`: the explicit limits, replacing the previous ones. A limit given as an
 * integer ≥ 0 or null (unlimited) overrides the tier's preset; a limit left out follows the tier.
 */
export class TenantQuotaLimitsDto {
  @IntField({
    nullable: true,
    min: 0,
    max: MAX_CONCURRENCY,
    description: 'Rule executions in flight at once, across every replica (null: unlimited).',
    example: 80,
  })
  maxConcurrentExecutions?: number | null;

  @IntField({
    nullable: true,
    min: 0,
    max: MAX_EVALUATIONS,
    description: 'Rule evaluations per UTC minute (null: unlimited).',
    example: 120000,
  })
  maxEvaluationsPerMinute?: number | null;

  @IntField({
    nullable: true,
    min: 0,
    max: MAX_EVALUATIONS,
    description: 'Rule evaluations per UTC day (null: unlimited).',
    example: null,
  })
  maxEvaluationsPerDay?: number | null;
}

/** `POST …/quotas/upgrade`. */
export class UpgradeTierDto {
  /** Checked by the service, case-insensitively (400 `UNKNOWN_TIER`). */
  @ApiProperty({
    enum: [...TIERS],
    description: 'The tier whose preset applies (case-insensitive).',
    example: 'Enterprise',
  })
  @IsDefined()
  tier!: unknown;
}
