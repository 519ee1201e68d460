import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Signed, hash-chained operator audit entry; `seq` is contiguous per tenant. Append-only. */
@Entity({ name: 'rule_set_audit' })
export class RuleSetAuditEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @PrimaryColumn({ type: 'bigint' })
  seq!: string;

  @Column({ name: 'workflow_name', type: 'text' })
  workflowName!: string;

  @Column({ type: 'timestamptz' })
  timestamp!: Date;

  @Column({ type: 'text' })
  actor!: string;

  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'int', nullable: true })
  version!: number | null;

  @Column({ type: 'text', nullable: true })
  detail!: string | null;

  @Column({ type: 'text' })
  status!: string;

  @Column({ name: 'prev_hash', type: 'text' })
  prevHash!: string;

  @Column({ type: 'text' })
  hash!: string;

  @Column({ type: 'text' })
  signature!: string;

  @Column({ name: 'key_id', type: 'text' })
  keyId!: string;
}

/**
 * The signed chain head per tenant, locked (`FOR UPDATE`) by every writer: serialises the chain, and
 * its signature shows the newest entries complete.
 */
@Entity({ name: 'rule_set_audit_heads' })
export class RuleSetAuditHeadEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'bigint' })
  seq!: string;

  @Column({ type: 'text' })
  hash!: string;

  /** When the head was signed; null only for a head whose signature was removed. */
  @Column({ name: 'signed_at', type: 'timestamptz', nullable: true })
  signedAt!: Date | null;

  @Column({ name: 'key_id', type: 'text', nullable: true })
  keyId!: string | null;

  /** base64 RSA signature of the head (`canonicalHead` of @arbiter/audit-chain). */
  @Column({ type: 'text', nullable: true })
  signature!: string | null;
}

export const AUDIT_ENTITIES = [RuleSetAuditEntity, RuleSetAuditHeadEntity];
