import { CanaryChangedEvent } from '@arbiter/contracts';
import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CanarySettings } from '../canary.settings';
import { inCanaryShare } from '../domain/canary-bucket';
import { CanaryRolloutRepository, LiveRollout } from '../persistence/canary-rollouts.repository';

/** Safety-net reload of the Active rollouts, for a change event that was lost. */
export const CANARY_POLL_MS = 15_000;

export interface CanaryRoute {
  version: number;
  rolloutId: string;
}

/**
 * Decides, on the execution hot path (synchronous, in memory), whether an execution runs a canary
 * version. Holds every Active rollout of every tenant with its targeted tenants; reloaded at startup,
 * after each local transition, on `arbiter.canary.changed` from any node and every 15 s. A rollout seen
 * as Promoted or RolledBack is dropped at once and never re-admitted by a reload that read older data.
 */
@Injectable()
export class CanaryRouter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('CanaryRouter');
  /** Active rollouts keyed by owner tenant and workflow. */
  private live = new Map<string, LiveRollout & { targets: Set<string> }>();
  /** Rollouts known to be Promoted or RolledBack (terminal states). */
  private readonly finished = new Set<string>();
  private loadsStarted = 0;
  private loadApplied = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly uow: UnitOfWork,
    @Inject(CanarySettings) private readonly settings: CanarySettings,
    @Inject(CanaryRolloutRepository) private readonly rollouts: CanaryRolloutRepository,
  ) {}

  async onModuleInit() {
    if (!this.settings.enableCanary) return;
    await this.reload();
    this.timer = setInterval(() => void this.reloadQuietly('poll'), CANARY_POLL_MS);
    this.timer.unref();
  }

  onApplicationShutdown() {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * The canary version an execution should run, or null for the active version. Targeted when the
   * subject tenant is assigned to the owner's Active rollout of the workflow, or, for a percentage
   * rollout, when `canaryBucket(workflowName, bucketKey) < targetPercentage`.
   */
  route(
    ownerTenantId: string,
    workflowName: string,
    subjectTenantId: string,
    bucketKey: string,
  ): CanaryRoute | null {
    if (!this.settings.enableCanary) return null;
    const rollout = this.live.get(keyOf(ownerTenantId, workflowName));
    if (!rollout) return null;
    const targeted =
      rollout.targetPercentage !== null
        ? inCanaryShare(workflowName, bucketKey, rollout.targetPercentage)
        : rollout.targets.has(subjectTenantId);
    return targeted ? { version: rollout.version, rolloutId: rollout.rolloutId } : null;
  }

  /** The owner's Active rollout of a workflow, whoever it targets (null when none runs). */
  liveRollout(ownerTenantId: string, workflowName: string): CanaryRoute | null {
    const rollout = this.live.get(keyOf(ownerTenantId, workflowName));
    return rollout ? { version: rollout.version, rolloutId: rollout.rolloutId } : null;
  }

  /** The Active rollouts this node routes by (for diagnostics and tests). */
  get activeRollouts(): LiveRollout[] {
    return [...this.live.values()].map(({ targets: _targets, ...rollout }) => rollout);
  }

  /** A rollout reached a terminal state: stop routing to it now. */
  forget(rolloutId: string) {
    this.finished.add(rolloutId);
    for (const [key, rollout] of this.live) if (rollout.rolloutId === rolloutId) this.live.delete(key);
  }

  /** A change from any node (bus): apply a terminal state at once, then re-read the database. */
  onChanged(event: Pick<CanaryChangedEvent, 'rolloutId' | 'status'>) {
    if (event.status !== 'Active') this.forget(event.rolloutId);
    void this.reloadQuietly('event');
  }

  /** Re-reads every Active rollout of every tenant; a slower, older read never overwrites a newer one. */
  async reload(): Promise<void> {
    const load = ++this.loadsStarted;
    const rows = await this.uow.run((m) => this.rollouts.live(m), { acrossTenants: true });
    if (load < this.loadApplied) return;
    this.loadApplied = load;
    this.live = new Map(
      rows
        .filter((r) => !this.finished.has(r.rolloutId))
        .map((r) => [keyOf(r.ownerTenantId, r.workflowName), { ...r, targets: new Set(r.targetTenantIds) }]),
    );
  }

  async reloadQuietly(via: string): Promise<void> {
    try {
      await this.reload();
    } catch (error) {
      this.logger.warn(`canary rollout reload (${via}) failed: ${error}`);
    }
  }
}

function keyOf(tenantId: string, workflowName: string) {
  return `${tenantId}\u0000${workflowName}`;
}
