import type { EntityClass } from '@arbiter/platform';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { LimitOverrides, Tier } from './domain/tiers';

/** The spec's TenantQuota record: the tier assigned to a tenant and its explicit limit overrides. */
@Entity({ name: 'tenant_quotas' })
export class TenantQuotaEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  /** null: the tenant follows `Quotas:DefaultTier`. */
  @Column({ type: 'text', nullable: true })
  tier!: Tier | null;

  /** Only the limits set explicitly (a null value: explicitly unlimited). */
  @Column({ type: 'jsonb' })
  overrides!: LimitOverrides;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'updated_by', type: 'text' })
  updatedBy!: string;
}

/** TypeORM entities of this module (registered in ControlPlaneModule). Usage windows and leases are
 * changed only through the migration's SQL functions, so they have no entity. */
export const QUOTA_ENTITIES: EntityClass[] = [TenantQuotaEntity];
