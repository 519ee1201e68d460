import { VersionField } from '../../shared';
import { StringField } from '@arbiter/platform';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';

const ACTOR = {
  optional: true,
  description:
    "Who acts. With a token the token's user (anyone else: 403 `ACTOR_MISMATCH`); with authorization " +
    'disabled this, then `X-Actor`, then `control-plane`.',
  example: 'alice',
} as const;

/**
 * Canary targets. Their rules (one or the other, 1-100, a non-empty list of tenant ids) are checked by
 * the service, so the canary routes under every prefix answer the same codes (`CANARY_TARGET_CONFLICT`,
 * `INVALID_TARGET_PERCENTAGE`, `INVALID_TARGET_TENANTS`); here they are declared for the document only.
 */
export class CanaryTargetsDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 100,
    nullable: true,
    description:
      'Share of traffic routed to the canary (not together with `targetTenantIds`); 1 when neither is given.',
    example: 10,
  })
  @IsOptional()
  targetPercentage?: unknown;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: '^[A-Za-z0-9._:@-]{1,128}$' },
    minItems: 1,
    maxItems: 1000,
    nullable: true,
    description:
      "Tenants that run the canary (not together with `targetPercentage`). A tenant's own rule set can target only itself; the shared `default` tenant's rule sets can target any tenant.",
    example: ['globex', 'initech'],
  })
  @IsOptional()
  targetTenantIds?: unknown;

  @StringField(ACTOR)
  actor?: string;
}

/** `POST /api/v1/canary`. */
export class StartCanaryDto extends CanaryTargetsDto {
  @StringField({ description: 'The workflow whose version is rolled out.', example: 'loan-approval' })
  workflowName!: string;

  @VersionField({
    description: 'The version to roll out: it exists and is not the active version.',
    example: 3,
  })
  version!: number;
}

/** `POST /api/v1/rule-engine/rulesets/{workflowName}/canary-start`. */
export class RuleEngineCanaryStartDto extends CanaryTargetsDto {
  @VersionField({
    description: 'The version to roll out: it exists and is not the active version.',
    example: 3,
  })
  version!: number;
}

/** Promote: only who acts. */
export class CanaryActorDto {
  @StringField(ACTOR)
  actor?: string;
}

export class CanaryRollbackDto extends CanaryActorDto {
  /** Checked by the service (400 `ROLLBACK_REASON_REQUIRED` when missing or blank). */
  @ApiProperty({
    type: 'string',
    minLength: 1,
    description: 'Why the rollout is rolled back (required, not blank).',
    example: 'error rate above 1 %',
  })
  @IsOptional()
  reason?: unknown;
}

const ROLLOUT_ID = {
  format: 'uuid',
  description: 'The rollout of this workflow.',
  example: '0b6f1d4e-5c1a-4f0e-9d3b-2a7c8e9f1a20',
} as const;

/** `POST …/rulesets/{workflowName}/canary/promote`. */
export class RolloutPromoteDto extends CanaryActorDto {
  @StringField(ROLLOUT_ID)
  @IsUUID()
  rolloutId!: string;
}

/** `POST …/rulesets/{workflowName}/canary/rollback`. */
export class RolloutRollbackDto extends CanaryRollbackDto {
  @StringField(ROLLOUT_ID)
  @IsUUID()
  rolloutId!: string;
}
