import { RuleSetChangedEvent } from '@arbiter/contracts';
import { EventBus, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { RuleSetRepository } from '../persistence/ruleset.repository';
import { RuleStoreSettings } from '../rulesets.settings';
import { ChangeMetrics } from './change-metrics';

export interface CachedRuleSet {
  tenantId: string;
  workflowName: string;
  revision: number;
  activeVersion: number | null;
  document: Record<string, unknown> | null;
  shape: string | null;
  loadedAt: number;
}

/** Revision of a remembered absence (no rule set for the workflow). */
const ABSENT = 0;

/** Safety-net poll of the revisions, for a change message that was lost. */
export const REVISION_POLL_MS = 15_000;

/**
 * Per-tenant cache of the active rule set of each workflow (`RuleStoreConfigs:EnableRuntimeCache`),
 * keyed by tenant and workflow and stamped with the rule set's revision. Evicted by change events
 * whose revision is newer (`arbiter.ruleset.changed`, any node), by explicit invalidation, and by a
 * poll of the revisions every 15 s and at once when the bus comes back after an outage; the next read
 * re-reads the database.
 */
@Injectable()
export class RuleSetCache implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RuleSetCache');
  private readonly entries = new Map<string, CachedRuleSet>();
  /** Highest revision seen per key, so a late, older event never evicts a newer entry. */
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly uow: UnitOfWork,
    @Inject(RuleStoreSettings) private readonly settings: RuleStoreSettings,
    @Inject(ChangeMetrics) private readonly metrics: ChangeMetrics,
    @Inject(RuleSetRepository) private readonly repo: RuleSetRepository,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {
    metrics.bindSize(() => this.entries.size);
  }

  private stopListening?: () => void;

  onModuleInit() {
    // Back from a bus outage: compare the revisions at once (change events published meanwhile are
    // replayed from the stream too, but a node that crashed before its events got out is covered here).
    this.stopListening = this.bus.onReconnected(() =>
      this.poll().then(
        (evicted) => this.logger.log({ msg: 'bus back: revisions compared', evicted }),
        (e) => this.logger.warn(`revision poll after reconnect failed: ${e}`),
      ),
    );
    this.timer = setInterval(
      () => void this.poll().catch((e) => this.logger.warn(`revision poll failed: ${e}`)),
      REVISION_POLL_MS,
    );
    this.timer.unref();
  }

  onApplicationShutdown() {
    if (this.timer) clearInterval(this.timer);
    this.stopListening?.();
  }

  get size() {
    return this.entries.size;
  }

  /**
   * The active rule set of a workflow for a tenant (null when none is active): synchronous when cached
   * (the execution hot path), a promise when the database has to be read.
   */
  getActive(tenantId: string, workflowName: string): CachedRuleSet | null | Promise<CachedRuleSet | null> {
    const key = keyOf(tenantId, workflowName);
    const cached = this.settings.enableRuntimeCache ? this.entries.get(key) : undefined;
    if (cached) {
      this.metrics.hit(tenantId);
      return cached.revision === ABSENT ? null : cached;
    }
    this.metrics.miss(tenantId);
    return this.load(key, tenantId, workflowName);
  }

  private async load(key: string, tenantId: string, workflowName: string): Promise<CachedRuleSet | null> {
    const loaded = await this.uow.run(
      async (m) => {
        const set = await this.repo.findSet(m, workflowName);
        if (!set) return null;
        const v = set.activeVersion ? await this.repo.findVersion(m, workflowName, set.activeVersion) : null;
        return {
          tenantId,
          workflowName,
          revision: Number(set.revision),
          activeVersion: set.activeVersion,
          document: v?.document ?? null,
          shape: v?.shape ?? null,
          loadedAt: Date.now(),
        } satisfies CachedRuleSet;
      },
      { tenantId },
    );
    if (!this.settings.enableRuntimeCache) return loaded;
    if (loaded && (this.seen.get(key) ?? 0) <= loaded.revision) {
      this.entries.set(key, loaded);
      this.seen.set(key, loaded.revision);
    } else if (!loaded && !this.seen.has(key)) {
      // A workflow the tenant does not have is remembered too (executions fall back to the shared
      // `default` tenant's rule set): the first change event for it (revision ≥ 1) or the poll evicts it.
      this.entries.set(key, {
        tenantId,
        workflowName,
        revision: ABSENT,
        activeVersion: null,
        document: null,
        shape: null,
        loadedAt: Date.now(),
      });
    }
    return loaded;
  }

  /** A change (local, from the bus, or from the poll): evict when it is newer than the cached entry. */
  onChanged(
    event: Pick<RuleSetChangedEvent, 'tenantId' | 'workflowName' | 'revision' | 'occurredAt'>,
    via: string,
  ) {
    const key = keyOf(event.tenantId, event.workflowName);
    if ((this.seen.get(key) ?? 0) < event.revision) this.seen.set(key, event.revision);
    const entry = this.entries.get(key);
    if (entry && entry.revision < event.revision) {
      this.entries.delete(key);
      this.metrics.evicted(event.tenantId, via);
      if (event.occurredAt) this.metrics.lag(Date.now() - Date.parse(event.occurredAt));
    }
  }

  /** Evicts every entry of a tenant (or everything). */
  clear(tenantId?: string) {
    for (const [key, entry] of this.entries)
      if (!tenantId || entry.tenantId === tenantId) {
        this.entries.delete(key);
        this.metrics.evicted(entry.tenantId, 'clear');
      }
  }

  /** Compares the cached revisions with the database's (all tenants) and evicts stale entries. */
  async poll(): Promise<number> {
    this.metrics.pollRuns++;
    if (this.entries.size === 0) return 0;
    const rows = await this.uow.run((m) => this.repo.revisions(m), { acrossTenants: true });
    let evicted = 0;
    const current = new Map(rows.map((r) => [keyOf(r.tenant_id, r.workflow_name), Number(r.revision)]));
    for (const [key, entry] of this.entries) {
      const revision = current.get(key);
      if (revision === undefined || revision > entry.revision) {
        this.entries.delete(key);
        this.metrics.evicted(entry.tenantId, 'poll');
        evicted++;
      }
    }
    return evicted;
  }
}

function keyOf(tenantId: string, workflowName: string) {
  return `${tenantId}\u0000${workflowName}`;
}
