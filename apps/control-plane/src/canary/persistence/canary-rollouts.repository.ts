import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CanaryRolloutEntity, TenantRuleAssignmentEntity } from '../entities';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An Active rollout as the router holds it: who owns it, what it routes, and to whom. */
export interface LiveRollout {
  rolloutId: string;
  ownerTenantId: string;
  workflowName: string;
  version: number;
  targetPercentage: number | null;
  /** Targeted tenants (from the tenant rule assignments); empty for a percentage rollout. */
  targetTenantIds: string[];
}

/**
 * Canary rollouts and tenant rule assignments, inside the caller's unit of work (row-level security:
 * rollouts are read and written as their owner tenant).
 */
@Injectable()
export class CanaryRolloutRepository {
  async find(m: EntityManager, rolloutId: string, lock = false): Promise<CanaryRolloutEntity | null> {
    if (!UUID.test(rolloutId)) return null;
    const qb = m
      .getRepository(CanaryRolloutEntity)
      .createQueryBuilder('r')
      .where('r.rollout_id = :rolloutId', { rolloutId });
    if (lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  /** The workflow's newest rollout (whatever its status). */
  async latest(m: EntityManager, workflowName: string, lock = false): Promise<CanaryRolloutEntity | null> {
    const qb = m
      .getRepository(CanaryRolloutEntity)
      .createQueryBuilder('r')
      .where('r.workflow_name = :workflowName', { workflowName })
      .orderBy('r.started_at', 'DESC')
      .limit(1);
    if (lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  findActive(m: EntityManager, workflowName: string): Promise<CanaryRolloutEntity | null> {
    return m.getRepository(CanaryRolloutEntity).findOne({ where: { workflowName, status: 'Active' } });
  }

  list(m: EntityManager, workflowName?: string): Promise<CanaryRolloutEntity[]> {
    return m.getRepository(CanaryRolloutEntity).find({
      where: workflowName ? { workflowName } : {},
      order: { startedAt: 'DESC' },
    });
  }

  async insert(m: EntityManager, rollout: CanaryRolloutEntity): Promise<void> {
    await m.getRepository(CanaryRolloutEntity).insert(rollout);
  }

  async close(
    m: EntityManager,
    rolloutId: string,
    change: Pick<CanaryRolloutEntity, 'status'> & Partial<CanaryRolloutEntity>,
  ): Promise<void> {
    await m.getRepository(CanaryRolloutEntity).update({ rolloutId, status: 'Active' }, change);
  }

  /**
   * Writes the tenant rule assignment of each targeted tenant. An assignment row belongs to the
   * targeted tenant, so the transaction's tenant is switched to it for its insert (row-level security
   * checks every write against `app.tenant_id`) and restored to the owner afterwards — one transaction,
   * so all rows commit or none. Returns the tenants already assigned to another rollout of the workflow.
   */
  async assign(m: EntityManager, rollout: CanaryRolloutEntity, actor: string): Promise<string[]> {
    const taken: string[] = [];
    for (const tenantId of rollout.targetTenantIds ?? []) {
      await setTenant(m, tenantId);
      const inserted: unknown[] = await m.query(
        `INSERT INTO tenant_rule_assignments
           (tenant_id, workflow_name, version, rollout_id, owner_tenant_id, assigned_at, assigned_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (tenant_id, workflow_name) DO NOTHING RETURNING tenant_id`,
        [
          tenantId,
          rollout.workflowName,
          rollout.version,
          rollout.rolloutId,
          rollout.tenantId,
          rollout.startedAt,
          actor,
        ],
      );
      if (inserted.length === 0) taken.push(tenantId);
    }
    await setTenant(m, rollout.tenantId);
    return taken;
  }

  /** Removes the rollout's tenant rule assignments (same tenant switching as `assign`). */
  async unassign(m: EntityManager, rollout: CanaryRolloutEntity): Promise<void> {
    for (const tenantId of rollout.targetTenantIds ?? []) {
      await setTenant(m, tenantId);
      await m
        .getRepository(TenantRuleAssignmentEntity)
        .delete({ tenantId, workflowName: rollout.workflowName, rolloutId: rollout.rolloutId });
    }
    await setTenant(m, rollout.tenantId);
  }

  /** Every Active rollout of every tenant with its assigned tenants (one statement: one snapshot). */
  async live(m: EntityManager): Promise<LiveRollout[]> {
    const rows: {
      rollout_id: string;
      tenant_id: string;
      workflow_name: string;
      version: number;
      target_percentage: number | null;
      targets: string[];
    }[] = await m.query(`
      SELECT r.rollout_id, r.tenant_id, r.workflow_name, r.version, r.target_percentage,
             COALESCE(array_agg(a.tenant_id) FILTER (WHERE a.tenant_id IS NOT NULL), '{}') AS targets
        FROM canary_rollouts r
        LEFT JOIN tenant_rule_assignments a ON a.rollout_id = r.rollout_id
       WHERE r.status = 'Active'
       GROUP BY r.rollout_id`);
    return rows.map((r) => ({
      rolloutId: r.rollout_id,
      ownerTenantId: r.tenant_id,
      workflowName: r.workflow_name,
      version: Number(r.version),
      targetPercentage: r.target_percentage === null ? null : Number(r.target_percentage),
      targetTenantIds: r.targets,
    }));
  }
}

async function setTenant(m: EntityManager, tenantId: string): Promise<void> {
  await m.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
}
