import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { CachedRuleSet, RuleSetCache, RuleSetRepository, SHARED_RULESET_TENANT } from '../rulesets';

/** A stored, immutable rule set version as the executor needs it. */
export interface ExecutableVersion {
  tenantId: string;
  workflowName: string;
  version: number;
  shape: string;
  document: Record<string, unknown>;
}

/** Which rule set serves a tenant's execution of a workflow, and its active version. */
export interface ActiveVersion {
  /** The tenant whose rule set it is (the caller's, or the shared `default` tenant's). */
  owner: string;
  /** Whether the owner has a rule set for the workflow at all. */
  exists: boolean;
  /** The active version (null when the rule set has none active). */
  version: ExecutableVersion | null;
}

/**
 * The active version a cached rule set serves, one object per cache entry (entries are replaced, never
 * changed): the compiled rule sets are found by that object, with no key built per execution.
 */
const servedBy = new WeakMap<CachedRuleSet, ActiveVersion>();

function activeOf(owner: string, workflowName: string, entry: CachedRuleSet | null): ActiveVersion {
  if (!entry) return { owner, exists: false, version: null };
  const known = servedBy.get(entry);
  if (known && known.owner === owner) return known; // an entry is its own tenant's: the same owner each time
  const active: ActiveVersion =
    entry.activeVersion === null || !entry.document || !entry.shape
      ? { owner, exists: true, version: null }
      : {
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
  servedBy.set(entry, active);
  return active;
}

export { SHARED_RULESET_TENANT };

/**
 * Which stored version an execution runs. The active version comes from the per-tenant rule set cache
 * (evicted by `arbiter.ruleset.changed`); a tenant without its own rule set for the workflow is
 * served by the shared `default` tenant's (so a platform operator can roll one workflow out to many
 * tenants, canary included). Pinned versions (shadow candidate, canary, sub flow, dry-run) are read by
 * number; versions are immutable, so what is read once stays true.
 */
@Injectable()
export class RuleSetVersions {
  /** Versions by number: the pending read, replaced by the version itself once found (immutable). */
  private readonly pinned = new Map<string, Promise<ExecutableVersion | null> | ExecutableVersion>();

  constructor(
    private readonly uow: UnitOfWork,
    @Inject(RuleSetCache) private readonly cache: RuleSetCache,
    @Inject(RuleSetRepository) private readonly ruleSets: RuleSetRepository,
  ) {}

  /**
   * The active version for a tenant (own rule set first, then the shared one); null when none exists.
   * Synchronous when both lookups are cached (the execution hot path).
   */
  active(tenantId: string, workflowName: string): ActiveVersion | Promise<ActiveVersion> {
    const own = this.cache.getActive(tenantId, workflowName);
    if (own instanceof Promise) return own.then((entry) => this.resolveShared(tenantId, workflowName, entry));
    return this.resolveShared(tenantId, workflowName, own);
  }

  private resolveShared(
    tenantId: string,
    workflowName: string,
    own: CachedRuleSet | null,
  ): ActiveVersion | Promise<ActiveVersion> {
    if (own || tenantId === SHARED_RULESET_TENANT) return activeOf(tenantId, workflowName, own);
    const shared = this.cache.getActive(SHARED_RULESET_TENANT, workflowName);
    if (shared instanceof Promise)
      return shared.then((entry) => activeOf(entry ? SHARED_RULESET_TENANT : tenantId, workflowName, entry));
    return activeOf(shared ? SHARED_RULESET_TENANT : tenantId, workflowName, shared);
  }

  /**
   * A version by number in the owner tenant's rule set (null when it does not exist): synchronous once
   * read (versions are immutable), a promise the first time.
   */
  byNumber(
    tenantId: string,
    workflowName: string,
    version: number,
  ): ExecutableVersion | null | Promise<ExecutableVersion | null> {
    const key = `${tenantId}\u0000${workflowName}\u0000${version}`;
    const known = this.pinned.get(key);
    if (known) return known;
    const pending = this.uow.run(
      async (m) => {
        const row = await this.ruleSets.findVersion(m, workflowName, version);
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
        else if (this.pinned.get(key) === pending) this.pinned.set(key, found);
      },
      () => this.pinned.delete(key),
    );
    if (this.pinned.size > 5000) this.pinned.clear();
    this.pinned.set(key, pending);
    return pending;
  }
}
