import { ArmStatistics } from '../../execution-audit';
import { iso } from '../../shared';
import { CanaryRolloutEntity } from '../entities';

/** The spec's "Canary rollout" resource (`createdAt` and `startedAt` are the same instant). */
export function rolloutView(r: CanaryRolloutEntity) {
  return {
    rolloutId: r.rolloutId,
    workflowName: r.workflowName,
    version: r.version,
    previousActiveVersion: r.previousActiveVersion,
    status: r.status,
    targetPercentage: r.targetPercentage,
    targetTenantIds: r.targetTenantIds,
    createdAt: iso(r.startedAt),
    startedAt: iso(r.startedAt),
    createdBy: r.createdBy,
    promotedAt: iso(r.promotedAt),
    rolledBackAt: iso(r.rolledBackAt),
    reason: r.reason,
  };
}

export type RolloutView = ReturnType<typeof rolloutView>;

/**
 * `progress` of the rule-engine start form: a tenant list reaches its tenants (percentage = their share
 * of the known tenants); a percentage rollout samples every tenant's traffic.
 */
export function progressOf(
  r: Pick<CanaryRolloutEntity, 'targetPercentage' | 'targetTenantIds'>,
  knownTenants: string[],
) {
  const totalTenants = new Set([...knownTenants, ...(r.targetTenantIds ?? [])]).size;
  if (r.targetTenantIds)
    return {
      percentage: totalTenants ? Math.round((100 * r.targetTenantIds.length) / totalTenants) : 0,
      tenantsAffected: r.targetTenantIds.length,
      totalTenants,
    };
  return { percentage: r.targetPercentage ?? 0, tenantsAffected: totalTenants, totalTenants };
}

/** Both arms of a rollout, with zeros for an arm the execution audit has no executions of yet. */
export function armsOf(r: CanaryRolloutEntity, activeArmVersion: number | null, stats: ArmStatistics[]) {
  return (['active', 'canary'] as const).map((arm) => {
    const found = stats.find((s) => s.arm === arm);
    return {
      arm,
      version: found?.version ?? (arm === 'canary' ? r.version : activeArmVersion),
      executions: found?.executions ?? 0,
      errors: found?.errors ?? 0,
      errorRate: found?.errorRate ?? 0,
    };
  });
}
