import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { RuleSetCache } from '../rulesets/application/ruleset-cache';
import { RuleSetVersionEntity } from '../rulesets/persistence/entities';

/** A stored, immutable rule set version as the executor needs it. */
export interface ExecutableVersion {
  tenantId: string;
  workflowName: string;
  version: number;
  shape: string;
  document: Record<string, unknown>;
}

/** The tenant whose rule sets serve every tenant that has no rule set of its own for a workflow. */
export const SHARED_RULESET_TENANT = 'default';

/**
 * Which stored version an execution runs. The active version comes from the per-tenant rule set cache
 * (evicted by `arbiter.ruleset.changed`); a tenant without its own rule set for the workflow is
 * served by the shared `default` tenant's (so a platform operator can roll one workflow out to many
 * tenants, canary included). Pinned versions (shadow candidate, canary, sub flow, dry-run) are read by
 * number; versions are immutable, so what is read once stays true.
 */
@Injectable()
export class RuleSetVersions {
  private readonly pinned = new Map<string, Promise<ExecutableVersion | null>>();

  constructor(
    private readonly uow: UnitOfWork,
    @Inject(RuleSetCache) private readonly cache: RuleSetCache,
  ) {}

  /** The active version for a tenant (own rule set first, then the shared one); null when none exists. */
  async active(
    tenantId: string,
    workflowName: string,
  ): Promise<{ owner: string; exists: boolean; version: ExecutableVersion | null }> {
    let owner = tenantId;
    let entry = await this.cache.getActive(tenantId, workflowName);
    if (!entry && tenantId !== SHARED_RULESET_TENANT) {
      owner = SHARED_RULESET_TENANT;
      entry = await this.cache.getActive(SHARED_RULESET_TENANT, workflowName);
    }
    if (!entry) return { owner: tenantId, exists: false, version: null };
    if (entry.activeVersion === null || !entry.document || !entry.shape)
      return { owner, exists: true, version: null };
    return {
      owner,
      exists: true,
      version: {
        tenantId: owner,
        workflowName,
        version: entry.activeVersion,
        shape: entry.shape,
        document: entry.document,
      },
    };
  }

  /** A version by number in the owner tenant's rule set (null when it does not exist). */
  byNumber(tenantId: string, workflowName: string, version: number): Promise<ExecutableVersion | null> {
    const key = `${tenantId}\u0000${workflowName}\u0000${version}`;
    let pending = this.pinned.get(key);
    if (!pending) {
      pending = this.uow.run(
        async (m) => {
          const row = await m
            .getRepository(RuleSetVersionEntity)
            .findOne({ where: { workflowName, version } });
          return row
            ? {
                tenantId,
                workflowName,
                version,
                shape: row.shape,
                document: row.document as Record<string, unknown>,
              }
            : null;
        },
        { tenantId },
      );
      // only found versions are remembered (a missing one may be saved later); bounded by a simple cap
      pending.then(
        (found) => {
          if (!found) this.pinned.delete(key);
        },
        () => this.pinned.delete(key),
      );
      if (this.pinned.size > 5000) this.pinned.clear();
      this.pinned.set(key, pending);
    }
    return pending;
  }
}
