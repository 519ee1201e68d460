import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, IsUUID, Min } from 'class-validator';

/**
 * Canary targets. Their rules (one or the other, 1-100, a non-empty tenant list) are checked by the
 * service so the canary routes under every prefix answer the same codes; here they are only declared.
 */
export class CanaryTargetsDto {
  @ApiPropertyOptional({ description: 'Integer 1-100; 1 when neither target is given', nullable: true })
  @IsOptional()
  targetPercentage?: unknown;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'Not together with targetPercentage' })
  @IsOptional()
  targetTenantIds?: unknown;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  actor?: string;
}

/** `POST /api/v1/canary`. */
export class StartCanaryDto extends CanaryTargetsDto {
  @ApiProperty()
  @IsString()
  workflowName!: string;

  @ApiProperty()
  @IsInt()
  @Min(1)
  version!: number;
}

/** `POST /api/v1/rule-engine/rulesets/{workflowName}/canary-start`. */
export class RuleEngineCanaryStartDto extends CanaryTargetsDto {
  @ApiProperty()
  @IsInt()
  @Min(1)
  version!: number;
}

export class CanaryActorDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  actor?: string;
}

export class CanaryRollbackDto extends CanaryActorDto {
  @ApiProperty({ description: 'Required (400 ROLLBACK_REASON_REQUIRED)' })
  @IsOptional()
  reason?: unknown;
}

/** `POST …/rulesets/{workflowName}/canary/promote`. */
export class RolloutPromoteDto extends CanaryActorDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  rolloutId!: string;
}

/** `POST …/rulesets/{workflowName}/canary/rollback`. */
export class RolloutRollbackDto extends CanaryRollbackDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  rolloutId!: string;
}
