import { RuleSetChangedEvent } from '@arbiter/contracts';
import { AppError, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuditAction, AuditLog } from '../../audit';
import { assertWorkflowName } from '../../shared';
import { LifecycleAction, RuleSetStatus } from '../domain/version-lifecycle';
import { RuleSetVersionEntity } from '../persistence/entities';
import { RuleSetRepository } from '../persistence/ruleset.repository';
import { ApprovalSettings } from '../rulesets.settings';
import { ChangePublisher } from './change-publisher';
import { ScenarioGate } from './scenario-gate';
import { LifecycleHooks, withNotes } from './lifecycle-hooks';
import { approvalRoutesDisabled, RuleSetErrors } from './ruleset-errors';
import { lockSet, nextStatus, requireVersion } from './ruleset-lookups';

/** The approval actions and the audit action each is recorded as. */
const AUDITED_AS = {
  submit: 'SUBMIT',
  approve: 'APPROVE',
  reject: 'REJECT',
  'reject-finally': 'REJECT',
} as const satisfies Partial<Record<LifecycleAction, AuditAction>>;
type ApprovalAction = keyof typeof AUDITED_AS;

interface Applied<Extra> {
  change: RuleSetChangedEvent['change'];
  /** The fields the response adds (who, when, why). */
  extra: Extra;
}

/**
 * Maker-checker approval of a version (only while `RuleControlPlane:RequireApproval` is true):
 * submit (Draft → PendingApproval), approve (PendingApproval → Approved, never by its submitter),
 * reject (PendingApproval → Draft, or the terminal Rejected with `final`). Each is audited in the same
 * transaction and published after commit.
 */
@Injectable()
export class VersionApproval {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(ApprovalSettings) private readonly settings: ApprovalSettings,
    @Inject(RuleSetRepository) private readonly repo: RuleSetRepository,
    @Inject(AuditLog) private readonly audit: AuditLog,
    @Inject(ChangePublisher) private readonly publisher: ChangePublisher,
    @Inject(LifecycleHooks) private readonly hooks: LifecycleHooks,
    @Inject(ScenarioGate) private readonly gate: ScenarioGate,
  ) {}

  /** Whether the approval routes exist. */
  get enabled(): boolean {
    return this.settings.requireApproval;
  }

  submit(workflowName: string, version: number, actorInput: string | null | undefined, detail: string) {
    return this.transition(workflowName, version, actorInput, 'submit', detail, async (m, v, actor, now) => {
      const status = nextStatus(v, 'submit', this.enabled);
      await this.repo.markSubmitted(m, workflowName, version, status, actor, now);
      return {
        status,
        change: 'submitted',
        extra: { submittedBy: actor, submittedAt: now.toISOString() },
      };
    });
  }

  async approve(
    workflowName: string,
    version: number,
    actorInput: string | null | undefined,
    detail: string,
  ) {
    if (this.enabled) await this.gate.requirePassed(workflowName, version, 'approve');
    return this.transition(workflowName, version, actorInput, 'approve', detail, async (m, v, actor, now) => {
      const status = nextStatus(v, 'approve', this.enabled);
      if (v.submittedBy && v.submittedBy.toLowerCase() === actor.toLowerCase())
        throw AppError.conflict(
          RuleSetErrors.SelfApproval,
          `'${actor}' submitted version ${version} of '${workflowName}' and cannot approve it (maker-checker)`,
        );
      await this.repo.markApproved(m, workflowName, version, status, actor, now);
      const notes = await this.hooks.run(m, {
        tenantId: RequestContext.tenantId(),
        workflowName,
        version,
        action: 'approve',
        document: v.document,
        actor,
        at: now,
      });
      return {
        status,
        notes,
        change: 'approved',
        extra: { approvedBy: actor, approvedAt: now.toISOString() },
      };
    });
  }

  /**
   * Reject: back to Draft (the control-plane approval flow), or with `final` — or always, when
   * `RuleControlPlane:ApprovalDenial` is `Rejected` — to the terminal Rejected
   * status (the runtime lifecycle's "approval denial": never activatable, never resubmitted).
   */
  reject(
    workflowName: string,
    version: number,
    actorInput: string | null | undefined,
    reason: string,
    final = false,
  ) {
    const action: ApprovalAction =
      final || this.settings.approvalDenial === 'Rejected' ? 'reject-finally' : 'reject';
    return this.transition(workflowName, version, actorInput, action, reason, async (m, v, actor, now) => {
      const status = nextStatus(v, action, this.enabled);
      await this.repo.markRejected(m, workflowName, version, status, actor, now, reason);
      return {
        status,
        change: 'rejected',
        extra: { rejectedBy: actor, rejectedAt: now.toISOString(), reason },
      };
    });
  }

  private async transition<Extra extends Record<string, unknown>>(
    workflowName: string,
    version: number,
    actorInput: string | null | undefined,
    action: ApprovalAction,
    detail: string,
    apply: (
      m: EntityManager,
      v: RuleSetVersionEntity,
      actor: string,
      now: Date,
    ) => Promise<Applied<Extra> & { status: RuleSetStatus; notes?: string[] }>,
  ) {
    assertWorkflowName(workflowName);
    if (!this.enabled) throw approvalRoutesDisabled();
    const actor = RequestContext.actor(actorInput);
    const tenantId = RequestContext.tenantId();
    const result = await this.uow.run(async (m) => {
      await lockSet(this.repo, m, workflowName);
      const v = await requireVersion(this.repo, m, workflowName, version, true);
      const now = new Date();
      const outcome = await apply(m, v, actor, now);
      const revision = await this.repo.touch(m, workflowName, now, actor);
      await this.audit.append(m, tenantId, [
        {
          workflowName,
          action: AUDITED_AS[action],
          actor,
          version,
          detail: withNotes(detail, outcome.notes ?? []),
        },
      ]);
      return { status: outcome.status, change: outcome.change, extra: outcome.extra, revision };
    });
    await this.publisher.announce(tenantId, workflowName, version, result.change, result.revision, actor);
    return {
      workflowName,
      version,
      status: result.status,
      ...result.extra,
      detail,
      revision: result.revision,
    };
  }
}
