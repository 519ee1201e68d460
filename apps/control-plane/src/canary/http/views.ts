import { ApiProperty } from '@nestjs/swagger';
import { INSTANT, nullableObjectOf } from '../../shared';
import type { RolloutView } from '../application/canary-views';
import { ROLLOUT_STATUSES, type RolloutStatus } from '../entities';

const ROLLOUT_ID = {
  type: 'string',
  format: 'uuid',
  example: '0b6f1d4e-5c1a-4f0e-9d3b-2a7c8e9f1a20',
} as const;

/** The spec's "Canary rollout" resource. */
export class CanaryRolloutView implements RolloutView {
  @ApiProperty(ROLLOUT_ID)
  rolloutId!: string;

  @ApiProperty({ example: 'loan-approval' })
  workflowName!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The canary version.', example: 3 })
  version!: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The version that was active when the rollout started.',
    example: 2,
  })
  previousActiveVersion!: number | null;

  @ApiProperty({ enum: [...ROLLOUT_STATUSES], example: 'Active' })
  status!: RolloutStatus;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 100,
    description: 'Share of traffic routed to the canary; null for a tenant-targeted rollout.',
    example: 10,
  })
  targetPercentage!: number | null;

  @ApiProperty({
    type: 'array',
    items: { type: 'string' },
    nullable: true,
    description: 'Tenants that run the canary; null for a percentage rollout.',
    example: null,
  })
  targetTenantIds!: string[] | null;

  @ApiProperty({ ...INSTANT, description: 'When the rollout started (the same instant as `startedAt`).' })
  createdAt!: string;

  @ApiProperty({ ...INSTANT, description: 'When the rollout started.' })
  startedAt!: string;

  @ApiProperty({ description: 'The actor who started it.', example: 'alice' })
  createdBy!: string;

  @ApiProperty({ ...INSTANT, nullable: true, example: null })
  promotedAt!: string | null;

  @ApiProperty({ ...INSTANT, nullable: true, example: null })
  rolledBackAt!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The rollback reason.', example: null })
  reason!: string | null;
}

/** How far a rollout reaches: `{ percentage, tenantsAffected, totalTenants }`. */
export class CanaryProgressView {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    description:
      "A percentage rollout's share of traffic, or a tenant list's share of the tenants the rule set serves.",
    example: 10,
  })
  percentage!: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 4 })
  tenantsAffected!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      "Tenants the rule set serves: every known tenant for the shared `default` tenant's rule sets, else the owner.",
    example: 4,
  })
  totalTenants!: number;
}

/** The rule-engine start form's answer: the rollout with its progress. */
export class CanaryRolloutProgressView extends CanaryRolloutView {
  @ApiProperty({ type: CanaryProgressView })
  progress!: CanaryProgressView;
}

/** Executions and errors of one arm of a rollout (execution audit). */
export class CanaryArmView {
  @ApiProperty({ enum: ['active', 'canary'] })
  arm!: 'active' | 'canary';

  @ApiProperty({ type: 'integer', nullable: true, description: 'The version the arm runs.', example: 2 })
  version!: number | null;

  @ApiProperty({ type: 'integer', minimum: 0, example: 1840 })
  executions!: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 3 })
  errors!: number;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 1,
    description: 'errors / executions.',
    example: 0.0016,
  })
  errorRate!: number;
}

/** Rollout metrics: the rollout, its progress and executions per arm. */
export class CanaryRolloutMetricsView extends CanaryRolloutProgressView {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The workflow's active version now.",
    example: 2,
  })
  activeVersion!: number | null;

  @ApiProperty({ description: 'Whether the execution audit is available to count executions per arm.' })
  armsAvailable!: boolean;

  @ApiProperty({ type: CanaryArmView, isArray: true, description: 'The active and the canary arm.' })
  arms!: CanaryArmView[];
}

/** The canary state of a workflow on the /api/v1/control-plane routes. */
export class CanaryStateView {
  @ApiProperty({ example: 'loan-approval' })
  workflowName!: string;

  @ApiProperty({ type: 'integer', nullable: true, example: 2 })
  activeVersion!: number | null;

  @ApiProperty({ ...nullableObjectOf(CanaryRolloutView), description: 'The Active rollout, if any.' })
  canary!: CanaryRolloutView | null;

  @ApiProperty({ type: CanaryRolloutView, isArray: true, description: 'Every rollout, newest first.' })
  rollouts!: CanaryRolloutView[];
}

/** Active → Promoted. */
export class CanaryPromotionView {
  @ApiProperty(ROLLOUT_ID)
  rolloutId!: string;

  @ApiProperty({ enum: ['Promoted'] })
  status!: 'Promoted';

  @ApiProperty(INSTANT)
  promotedAt!: string;

  @ApiProperty({ example: 'loan-approval' })
  workflowName!: string;

  @ApiProperty({ type: 'integer', description: 'The promoted version, now active.', example: 3 })
  version!: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The version archived by the promotion.',
    example: 2,
  })
  previousActiveVersion!: number | null;
}

/** Active → RolledBack. */
export class CanaryRollbackView {
  @ApiProperty(ROLLOUT_ID)
  rolloutId!: string;

  @ApiProperty({ enum: ['RolledBack'] })
  status!: 'RolledBack';

  @ApiProperty(INSTANT)
  rolledBackAt!: string;

  @ApiProperty({ example: 'error rate above 1 %' })
  reason!: string;

  @ApiProperty({ example: 'loan-approval' })
  workflowName!: string;

  @ApiProperty({ type: 'integer', example: 3 })
  version!: number;
}
