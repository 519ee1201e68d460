import type { EntityClass } from '@arbiter/platform';
import { Column, Entity, PrimaryColumn } from 'typeorm';

export const ROLLOUT_STATUSES = ['Active', 'Promoted', 'RolledBack'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

/** A canary rollout of one version of the owner tenant's rule set (`tenant_id` is the owner). */
@Entity({ name: 'canary_rollouts' })
export class CanaryRolloutEntity {
  @PrimaryColumn({ name: 'rollout_id', type: 'uuid' })
  rolloutId!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'workflow_name', type: 'text' })
  workflowName!: string;

  @Column({ type: 'int' })
  version!: number;

  @Column({ name: 'previous_active_version', type: 'int', nullable: true })
  previousActiveVersion!: number | null;

  @Column({ type: 'text' })
  status!: RolloutStatus;

  @Column({ name: 'target_percentage', type: 'int', nullable: true })
  targetPercentage!: number | null;

  @Column({ name: 'target_tenant_ids', type: 'jsonb', nullable: true })
  targetTenantIds!: string[] | null;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'promoted_at', type: 'timestamptz', nullable: true })
  promotedAt!: Date | null;

  @Column({ name: 'rolled_back_at', type: 'timestamptz', nullable: true })
  rolledBackAt!: Date | null;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;
}

/** Spec "Tenant rule assignment", keyed by (TenantId, WorkflowName): a targeted tenant's canary version. */
@Entity({ name: 'tenant_rule_assignments' })
export class TenantRuleAssignmentEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @PrimaryColumn({ name: 'workflow_name', type: 'text' })
  workflowName!: string;

  @Column({ type: 'int' })
  version!: number;

  @Column({ name: 'rollout_id', type: 'uuid' })
  rolloutId!: string;

  @Column({ name: 'owner_tenant_id', type: 'text' })
  ownerTenantId!: string;

  @Column({ name: 'assigned_at', type: 'timestamptz' })
  assignedAt!: Date;

  @Column({ name: 'assigned_by', type: 'text' })
  assignedBy!: string;
}

/** TypeORM entities of this module (registered in ControlPlaneModule). */
export const CANARY_ENTITIES: EntityClass[] = [CanaryRolloutEntity, TenantRuleAssignmentEntity];
