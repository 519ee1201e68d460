import { CanaryChangedEvent, Subjects } from '@arbiter/contracts';
import { AppError, EventBus, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AuditLog } from '../../audit';
import { ExecutionAuditQueries } from '../../execution-audit';
import {
  ActivateVersion,
  ApprovalSettings,
  judgeTransition,
  RuleSetErrors,
  RuleSetRepository,
  ruleSetNotFound,
  RuleSetStatus,
  SHARED_RULESET_TENANT,
  versionNotFound,
} from '../../rulesets';
import { assertWorkflowName } from '../../shared';
import { CanarySettings } from '../canary.settings';
import { CanaryRolloutEntity } from '../entities';
import { CanaryRolloutRepository } from '../persistence/canary-rollouts.repository';
import { canaryDisabled, CanaryErrors, rolloutNotFound, wrongRolloutState } from './canary-errors';
import { CanaryRouter } from './canary-router';
import { armsOf, progressOf, RolloutView, rolloutView } from './canary-views';

const TENANT_ID = /^[A-Za-z0-9._:@-]{1,128}$/;
const MAX_TARGET_TENANTS = 1000;
/** Share of traffic when neither `targetPercentage` nor `targetTenantIds` is given (spec: 1 percent). */
export const DEFAULT_CANARY_PERCENTAGE = 1;

export interface StartCanaryInput {
  workflowName: string;
  version: number;
  targetPercentage?: unknown;
  targetTenantIds?: unknown;
  actor?: string | null;
}

/** Which rollout an operation means: one by id (within a workflow when given), or a workflow's newest. */
export type RolloutRef = { rolloutId: string; workflowName?: string } | { workflowName: string };

const iso = (d: Date) => d.toISOString();

/**
 * Canary rollouts as the spec's state table reads: start (none → Active), promote (Active → Promoted:
 * the version is activated for all tenants through the rule sets' activation, the previous active version is
 * archived), rollback (Active → RolledBack: routing stops at once). Each transition is audited in the
 * owner tenant's signed audit chain in the same transaction, then the local router is updated and
 * `arbiter.canary.changed` is published (every node's router and hub clients react to it).
 */
@Injectable()
export class CanaryService {
  private readonly logger = new Logger('CanaryService');
  /** Transitions of one tenant run one at a time on this node (promote spans two transactions). */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly uow: UnitOfWork,
    @Inject(CanarySettings) private readonly settings: CanarySettings,
    @Inject(ApprovalSettings) private readonly approval: ApprovalSettings,
    @Inject(RuleSetRepository) private readonly ruleSets: RuleSetRepository,
    @Inject(ActivateVersion) private readonly activation: ActivateVersion,
    @Inject(AuditLog) private readonly audit: AuditLog,
    @Inject(CanaryRolloutRepository) private readonly rollouts: CanaryRolloutRepository,
    @Inject(CanaryRouter) private readonly router: CanaryRouter,
    @Inject(EventBus) private readonly bus: EventBus,
    @Optional() @Inject(ExecutionAuditQueries) private readonly executions?: ExecutionAuditQueries,
  ) {}

  // ------------------------------------------------------------------------------------------ reads

  async list(): Promise<RolloutView[]> {
    this.assertEnabled();
    return (await this.uow.run((m) => this.rollouts.list(m))).map(rolloutView);
  }

  /** The "canary state" of the /api/v1/control-plane routes: the workflow's active version, its Active rollout and its history. */
  async state(workflowName: string) {
    this.assertEnabled();
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      const activeVersion = await this.activeVersionOf(m, workflowName);
      const rollouts = (await this.rollouts.list(m, workflowName)).map(rolloutView);
      return {
        workflowName,
        activeVersion,
        canary: rollouts.find((r) => r.status === 'Active') ?? null,
        rollouts,
      };
    });
  }

  /** Rollout metrics: the rollout, its progress and executions/errors per arm (execution audit). */
  async metrics(workflowName: string, rolloutId: string) {
    this.assertEnabled();
    assertWorkflowName(workflowName);
    const { rollout, activeVersion } = await this.uow.run(async (m) => ({
      rollout: await this.resolve(m, { workflowName, rolloutId }),
      activeVersion: await this.activeVersionOf(m, workflowName),
    }));
    const stats = this.executions ? await this.executions.armStatistics(workflowName, rolloutId) : null;
    const view = rolloutView(rollout);
    const activeArm = rollout.status === 'Active' ? activeVersion : rollout.previousActiveVersion;
    return {
      ...view,
      activeVersion,
      progress: await this.progress(view),
      armsAvailable: stats !== null,
      arms: stats ? armsOf(rollout, activeArm, stats) : [],
    };
  }

  /**
   * `{ percentage, tenantsAffected, totalTenants }` over the tenants the rollout's rule set serves: for
   * the shared `default` tenant, every tenant known to the control plane; for any other tenant, itself
   * (its rule sets serve nobody else, and other tenants' existence is not its business).
   */
  async progress(rollout: Pick<RolloutView, 'targetPercentage' | 'targetTenantIds'>) {
    const owner = RequestContext.tenantId();
    const known =
      owner === SHARED_RULESET_TENANT
        ? await this.uow.run((m) => this.ruleSets.ownerTenants(m), { acrossTenants: true })
        : [owner];
    return progressOf(rollout, known);
  }

  // -------------------------------------------------------------------------------------- transitions

  /** none → Active. */
  async start(input: StartCanaryInput): Promise<RolloutView> {
    this.assertEnabled();
    const { workflowName, version } = input;
    assertWorkflowName(workflowName);
    const targets = resolveTargets(input.targetPercentage, input.targetTenantIds);
    const actor = RequestContext.actor(input.actor);
    const tenantId = RequestContext.tenantId();
    assertTargetsServed(tenantId, targets.targetTenantIds);
    const rollout = await this.serialized(tenantId, () =>
      this.uow.run(async (m) => {
        const set = await this.ruleSets.lockSet(m, workflowName);
        if (!set) throw ruleSetNotFound(workflowName);
        const target = await this.ruleSets.findVersion(m, workflowName, version);
        if (!target) throw versionNotFound(workflowName, version);
        if (set.activeVersion === version)
          throw AppError.conflict(
            CanaryErrors.VersionActive,
            `Version ${version} is the active version of '${workflowName}': a canary needs another version`,
          );
        this.assertActivatable(workflowName, version, target.status);
        const running = await this.rollouts.findActive(m, workflowName);
        if (running)
          throw AppError.conflict(
            CanaryErrors.AlreadyActive,
            `Canary rollout ${running.rolloutId} (version ${running.version}) of '${workflowName}' is still Active: promote or roll it back first`,
          );
        const rollout = Object.assign(new CanaryRolloutEntity(), {
          rolloutId: randomUUID(),
          tenantId,
          workflowName,
          version,
          previousActiveVersion: set.activeVersion,
          status: 'Active',
          ...targets,
          startedAt: new Date(),
          createdBy: actor,
          promotedAt: null,
          rolledBackAt: null,
          reason: null,
        } satisfies CanaryRolloutEntity);
        await this.rollouts.insert(m, rollout);
        await this.audit.append(m, tenantId, [
          {
            workflowName,
            action: 'CANARY_START',
            actor,
            version,
            detail: `rollout ${rollout.rolloutId}: ${describeTargets(rollout)}`,
          },
        ]);
        const taken = await this.rollouts.assign(m, rollout, actor);
        if (taken.length)
          throw AppError.conflict(
            CanaryErrors.TenantAssigned,
            `Tenant(s) ${taken.join(', ')} already run a canary of '${workflowName}'`,
          );
        return rollout;
      }),
    );
    await this.announce(rollout);
    return rolloutView(rollout);
  }

  /**
   * Active → Promoted: the canary version is activated for every tenant (the rule sets' activation:
   * the previous active version is archived, ACTIVATE/ARCHIVE audited, rule set change published),
   * then the rollout is closed. Already active (activated directly meanwhile): only the rollout closes.
   */
  async promote(ref: RolloutRef, actorInput?: string | null) {
    this.assertEnabled();
    const actor = RequestContext.actor(actorInput);
    const tenantId = RequestContext.tenantId();
    return this.serialized(tenantId, async () => {
      const { rollout, activeVersion } = await this.uow.run(async (m) => {
        const rollout = await this.resolve(m, ref);
        if (rollout.status !== 'Active')
          throw wrongRolloutState(rollout.rolloutId, rollout.status, 'promote');
        return { rollout, activeVersion: await this.activeVersionOf(m, rollout.workflowName) };
      });
      let previousActiveVersion = activeVersion;
      if (activeVersion !== rollout.version) {
        const activation = await this.activation.execute(
          rollout.workflowName,
          rollout.version,
          actor,
          `canary rollout ${rollout.rolloutId} promoted`,
        );
        previousActiveVersion = activation.previousActiveVersion;
      }
      const promotedAt = new Date();
      await this.uow.run(async (m) => {
        const current = await this.rollouts.find(m, rollout.rolloutId, true);
        if (current?.status !== 'Active')
          throw wrongRolloutState(rollout.rolloutId, current?.status ?? 'gone', 'promote');
        await this.rollouts.close(m, rollout.rolloutId, { status: 'Promoted', promotedAt });
        await this.audit.append(m, tenantId, [
          {
            workflowName: rollout.workflowName,
            action: 'CANARY_PROMOTE',
            actor,
            version: rollout.version,
            detail:
              `rollout ${rollout.rolloutId}: version ${rollout.version} active for all tenants` +
              (previousActiveVersion ? `, version ${previousActiveVersion} archived` : ''),
          },
        ]);
        await this.rollouts.unassign(m, current);
      });
      await this.announce({ ...rollout, status: 'Promoted' });
      return {
        rolloutId: rollout.rolloutId,
        status: 'Promoted' as const,
        promotedAt: iso(promotedAt),
        workflowName: rollout.workflowName,
        version: rollout.version,
        previousActiveVersion,
      };
    });
  }

  /** Active → RolledBack: routing stops and every execution runs the active version again. */
  async rollback(ref: RolloutRef, reasonInput: unknown, actorInput?: string | null) {
    this.assertEnabled();
    const reason = typeof reasonInput === 'string' ? reasonInput.trim() : '';
    if (!reason)
      throw AppError.badRequest(
        CanaryErrors.ReasonRequired,
        'A rollback reason is required (body field reason)',
        [{ field: 'reason', message: 'required' }],
      );
    const actor = RequestContext.actor(actorInput);
    const tenantId = RequestContext.tenantId();
    return this.serialized(tenantId, async () => {
      const rolledBackAt = new Date();
      const rollout = await this.uow.run(async (m) => {
        const rollout = await this.resolve(m, ref, true);
        if (rollout.status !== 'Active')
          throw wrongRolloutState(rollout.rolloutId, rollout.status, 'roll back');
        await this.rollouts.close(m, rollout.rolloutId, { status: 'RolledBack', rolledBackAt, reason });
        await this.audit.append(m, tenantId, [
          {
            workflowName: rollout.workflowName,
            action: 'CANARY_ROLLBACK',
            actor,
            version: rollout.version,
            detail: `rollout ${rollout.rolloutId} rolled back: ${reason}`,
          },
        ]);
        await this.rollouts.unassign(m, rollout);
        return rollout;
      });
      await this.announce({ ...rollout, status: 'RolledBack' });
      return {
        rolloutId: rollout.rolloutId,
        status: 'RolledBack' as const,
        rolledBackAt: iso(rolledBackAt),
        reason,
        workflowName: rollout.workflowName,
        version: rollout.version,
      };
    });
  }

  // ---------------------------------------------------------------------------------------- helpers

  private assertEnabled() {
    if (!this.settings.enableCanary) throw canaryDisabled();
  }

  /** A canary version must be one the version lifecycle lets activate, or promote could not serve it. */
  private assertActivatable(workflowName: string, version: number, status: RuleSetStatus) {
    const verdict = judgeTransition(status, 'activate', { requireApproval: this.approval.requireApproval });
    if (verdict.allowed) return;
    if (verdict.refusal === 'approval-required')
      throw AppError.conflict(
        RuleSetErrors.ApprovalRequired,
        `Version ${version} of '${workflowName}' is ${status}: approval is required before a canary rollout`,
      );
    throw AppError.conflict(
      CanaryErrors.InvalidStateTransition,
      `Version ${version} of '${workflowName}' is ${status}: it cannot be rolled out`,
    );
  }

  private async resolve(m: EntityManager, ref: RolloutRef, lock = false): Promise<CanaryRolloutEntity> {
    if ('rolloutId' in ref) {
      const rollout = await this.rollouts.find(m, ref.rolloutId, lock);
      if (!rollout || (ref.workflowName && rollout.workflowName !== ref.workflowName))
        throw rolloutNotFound(`'${ref.rolloutId}'`);
      return rollout;
    }
    const rollout = await this.rollouts.latest(m, ref.workflowName, lock);
    if (rollout) return rollout;
    await this.activeVersionOf(m, ref.workflowName);
    throw rolloutNotFound(`of workflow '${ref.workflowName}'`);
  }

  private async activeVersionOf(m: EntityManager, workflowName: string): Promise<number | null> {
    const set = await this.ruleSets.findSet(m, workflowName);
    if (!set) throw ruleSetNotFound(workflowName);
    return set.activeVersion ?? null;
  }

  /** After commit: this node's router first (no lag here), then every node through the bus. */
  private async announce(rollout: CanaryRolloutEntity) {
    if (rollout.status === 'Active') await this.router.reloadQuietly('local');
    else this.router.forget(rollout.rolloutId);
    const event: CanaryChangedEvent = {
      rolloutId: rollout.rolloutId,
      workflowName: rollout.workflowName,
      tenantId: rollout.tenantId,
      version: rollout.version,
      status: rollout.status,
      occurredAt: new Date().toISOString(),
    };
    try {
      await this.bus.publish(Subjects.CanaryChanged, event, { tenantId: rollout.tenantId });
    } catch (error) {
      this.logger.error({
        msg: 'canary change not published (other nodes catch up at their next poll)',
        err: String(error),
      });
    }
  }

  private serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
    const tail = run.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => this.queues.get(key) === tail && this.queues.delete(key));
    return run;
  }
}

/** Spec canary rule 1: a percentage or a tenant list, not both; neither means 1 percent. */
/**
 * A tenant's own rule set serves only that tenant; the shared `default` tenant's rule sets serve every
 * tenant without one of its own. So only a `default` rollout can target other tenants: anything else
 * would be assigned and never routed.
 */
function assertTargetsServed(ownerTenantId: string, targetTenantIds: string[] | null): void {
  if (!targetTenantIds || ownerTenantId === SHARED_RULESET_TENANT) return;
  const others = targetTenantIds.filter((t) => t !== ownerTenantId);
  if (others.length)
    throw AppError.badRequest(
      CanaryErrors.TargetNotServed,
      `Tenant(s) ${others.join(', ')} do not run tenant '${ownerTenantId}' rule sets: a tenant's rollout can target only itself; ` +
        `rollouts of the shared '${SHARED_RULESET_TENANT}' tenant can target any tenant`,
      [{ field: 'targetTenantIds', message: `only '${ownerTenantId}' is served by this rule set` }],
    );
}

export function resolveTargets(
  percentage: unknown,
  tenantIds: unknown,
): { targetPercentage: number | null; targetTenantIds: string[] | null } {
  const hasPercentage = percentage !== undefined && percentage !== null;
  const hasTenants = tenantIds !== undefined && tenantIds !== null;
  if (hasPercentage && hasTenants)
    throw AppError.badRequest(
      CanaryErrors.TargetConflict,
      'Give targetPercentage or targetTenantIds, not both',
      [
        { field: 'targetPercentage', message: 'conflicts with targetTenantIds' },
        { field: 'targetTenantIds', message: 'conflicts with targetPercentage' },
      ],
    );
  if (hasTenants) {
    const valid =
      Array.isArray(tenantIds) &&
      tenantIds.length > 0 &&
      tenantIds.length <= MAX_TARGET_TENANTS &&
      tenantIds.every((t) => typeof t === 'string' && TENANT_ID.test(t.trim()));
    if (!valid)
      throw AppError.badRequest(
        CanaryErrors.InvalidTenants,
        `targetTenantIds must be 1-${MAX_TARGET_TENANTS} tenant ids (1-128 characters of letters, digits, . _ : @ -)`,
        [{ field: 'targetTenantIds', message: 'invalid tenant id list' }],
      );
    return { targetPercentage: null, targetTenantIds: [...new Set(tenantIds.map((t: string) => t.trim()))] };
  }
  if (!hasPercentage) return { targetPercentage: DEFAULT_CANARY_PERCENTAGE, targetTenantIds: null };
  if (typeof percentage !== 'number' || !Number.isInteger(percentage) || percentage < 1 || percentage > 100)
    throw AppError.badRequest(
      CanaryErrors.InvalidPercentage,
      'targetPercentage must be an integer from 1 to 100',
      [{ field: 'targetPercentage', message: 'must be an integer from 1 to 100' }],
    );
  return { targetPercentage: percentage, targetTenantIds: null };
}

function describeTargets(r: CanaryRolloutEntity): string {
  return r.targetTenantIds
    ? `version ${r.version} for tenant(s) ${r.targetTenantIds.join(', ')}`
    : `version ${r.version} for ${r.targetPercentage} % of traffic`;
}
