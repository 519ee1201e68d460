import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, Max, Min } from 'class-validator';

const MAX_EVALUATIONS = Number.MAX_SAFE_INTEGER;
const MAX_CONCURRENCY = 1_000_000;

/**
 * `PUT …/quotas/limits`: the explicit limits, replacing the previous ones. A limit given as an
 * integer ≥ 0 or null (unlimited) overrides the tier's preset; a limit left out follows the tier.
 */
export class TenantQuotaLimitsDto {
  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 0, maximum: MAX_CONCURRENCY })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_CONCURRENCY)
  maxConcurrentExecutions?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_EVALUATIONS)
  maxEvaluationsPerMinute?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_EVALUATIONS)
  maxEvaluationsPerDay?: number | null;
}

/** `POST …/quotas/upgrade`. */
export class UpgradeTierDto {
  @ApiProperty({ enum: ['Free', 'Licensed', 'Enterprise'] })
  @IsDefined()
  tier!: unknown;
}
