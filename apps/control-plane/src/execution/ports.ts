import type { Facts } from '@arbiter/rule-engine';

/**
 * What the executor needs from its neighbours, declared here (the consumer's side) and bound in
 * ExecutionModule to the canary, quota and traditional-path implementations.
 */

/** Canary routing on the hot path: synchronous, from memory. */
export abstract class CanaryRouting {
  abstract route(
    ownerTenantId: string,
    workflowName: string,
    subjectTenantId: string,
    bucketKey: string,
  ): { version: number; rolloutId: string } | null;

  /** The workflow's running rollout, whoever it targets (the Shadow candidate when none is configured). */
  abstract activeRollout(
    ownerTenantId: string,
    workflowName: string,
  ): { version: number; rolloutId: string } | null;
}

export interface QuotaLeaseHandle {
  release(): void;
}

/** Per-tenant quota: throws a 429 AppError when the tenant is over a limit. */
export abstract class ExecutionQuota {
  abstract acquire(tenantId: string): QuotaLeaseHandle | Promise<QuotaLeaseHandle>;
}

/**
 * The traditional code path of `Traditional` and `Hybrid` routing: the embedding application's own
 * (pre-rules) logic for a workflow. The default has none and answers empty outputs, so a Hybrid
 * rollout can be measured before the rules take over; an application binds its own implementation.
 */
export abstract class TraditionalExecution {
  abstract execute(workflowName: string, facts: Facts): Facts | Promise<Facts>;
}

export class NoTraditionalExecution extends TraditionalExecution {
  execute(): Facts {
    return {};
  }
}
