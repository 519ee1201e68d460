import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { RuleSetStatus } from '../domain/version-lifecycle';

/** One row per (tenant, workflow): version counter, active version, change revision. */
@Entity({ name: 'rule_sets' })
export class RuleSetEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @PrimaryColumn({ name: 'workflow_name', type: 'text' })
  workflowName!: string;

  @Column({ name: 'latest_version', type: 'int' })
  latestVersion!: number;

  @Column({ name: 'active_version', type: 'int', nullable: true })
  activeVersion!: number | null;

  /** bigint, read as a string by pg. */
  @Column({ type: 'bigint' })
  revision!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'modified_at', type: 'timestamptz' })
  modifiedAt!: Date;

  @Column({ name: 'modified_by', type: 'text' })
  modifiedBy!: string;
}

/** An immutable version: the document never changes, only the lifecycle columns do. */
@Entity({ name: 'rule_set_versions' })
export class RuleSetVersionEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @PrimaryColumn({ name: 'workflow_name', type: 'text' })
  workflowName!: string;

  @PrimaryColumn({ type: 'int' })
  version!: number;

  @Column({ type: 'text' })
  status!: RuleSetStatus;

  @Column({ type: 'text' })
  shape!: string;

  @Column({ type: 'jsonb' })
  document!: Record<string, unknown>;

  @Column({ name: 'change_description', type: 'text', nullable: true })
  changeDescription!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'submitted_by', type: 'text', nullable: true })
  submittedBy!: string | null;

  @Column({ name: 'submitted_at', type: 'timestamptz', nullable: true })
  submittedAt!: Date | null;

  @Column({ name: 'approved_by', type: 'text', nullable: true })
  approvedBy!: string | null;

  @Column({ name: 'approved_at', type: 'timestamptz', nullable: true })
  approvedAt!: Date | null;

  @Column({ name: 'activated_by', type: 'text', nullable: true })
  activatedBy!: string | null;

  @Column({ name: 'activated_at', type: 'timestamptz', nullable: true })
  activatedAt!: Date | null;

  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt!: Date | null;

  @Column({ name: 'rejected_by', type: 'text', nullable: true })
  rejectedBy!: string | null;

  @Column({ name: 'rejected_at', type: 'timestamptz', nullable: true })
  rejectedAt!: Date | null;

  @Column({ name: 'rejection_reason', type: 'text', nullable: true })
  rejectionReason!: string | null;
}

export const RULE_SET_ENTITIES = [RuleSetEntity, RuleSetVersionEntity];
