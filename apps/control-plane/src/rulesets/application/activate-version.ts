import { RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuditInput, AuditLog } from '../../audit';
import { assertWorkflowName } from '../../shared';
import { VERSION_LIFECYCLE } from '../domain/version-lifecycle';
import { RuleSetRepository } from '../persistence/ruleset.repository';
import { ApprovalSettings } from '../rulesets.settings';
import { ChangePublisher } from './change-publisher';
import { LifecycleHooks, withNotes } from './lifecycle-hooks';
import { ScenarioGate } from './scenario-gate';
import { lockSet, nextStatus, requireVersion } from './ruleset-lookups';

export interface ActivationResult {
  workflowName: string;
  version: number;
  status: 'Active';
  activatedAt: string;
  activatedBy: string;
  previousActiveVersion: number | null;
  revision: number;
}

/**
 * Activates a version (Approved, or Draft while approval is off): the previous active version is
 * archived, ACTIVATE (and ARCHIVE) audited in the same transaction, the change published after commit.
 */
@Injectable()
export class ActivateVersion {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(ApprovalSettings) private readonly settings: ApprovalSettings,
    @Inject(RuleSetRepository) private readonly repo: RuleSetRepository,
    @Inject(AuditLog) private readonly audit: AuditLog,
    @Inject(ChangePublisher) private readonly publisher: ChangePublisher,
    @Inject(LifecycleHooks) private readonly hooks: LifecycleHooks,
    @Inject(ScenarioGate) private readonly gate: ScenarioGate,
  ) {}

  async execute(
    workflowName: string,
    version: number,
    actorInput?: string | null,
    detail?: string | null,
  ): Promise<ActivationResult> {
    assertWorkflowName(workflowName);
    const actor = RequestContext.actor(actorInput);
    const tenantId = RequestContext.tenantId();
    // asked before the transaction: nothing is held while another service answers
    await this.gate.requirePassed(workflowName, version, 'activate');
    const result = await this.uow.run((m) =>
      this.within(m, tenantId, workflowName, version, actor, detail ?? null),
    );
    await this.publisher.announce(tenantId, workflowName, version, 'activated', result.revision, actor);
    return result;
  }

  /** The activation inside the caller's transaction (save-and-activate); the caller publishes. */
  async within(
    m: EntityManager,
    tenantId: string,
    workflowName: string,
    version: number,
    actor: string,
    detail: string | null,
  ): Promise<ActivationResult> {
    const set = await lockSet(this.repo, m, workflowName);
    const target = await requireVersion(this.repo, m, workflowName, version, true);
    const status = nextStatus(target, 'activate', this.settings.requireApproval);
    const now = new Date();
    const previous = set.activeVersion;
    const audits: AuditInput[] = [];
    if (previous && previous !== version) {
      // the active version's own transition: always allowed by the lifecycle
      await this.repo.archiveVersion(m, workflowName, previous, VERSION_LIFECYCLE.Active.archive!.to, now);
      audits.push({
        workflowName,
        action: 'ARCHIVE',
        actor,
        version: previous,
        detail: `superseded by version ${version}`,
      });
    }
    const revision = await this.repo.activateVersion(m, workflowName, version, status, now, actor);
    const notes = await this.hooks.run(m, {
      tenantId,
      workflowName,
      version,
      action: 'activate',
      document: target.document,
      actor,
      at: now,
    });
    audits.push({ workflowName, action: 'ACTIVATE', actor, version, detail: withNotes(detail, notes) });
    await this.audit.append(m, tenantId, audits);
    return {
      workflowName,
      version,
      status: 'Active',
      activatedAt: now.toISOString(),
      activatedBy: actor,
      previousActiveVersion: previous ?? null,
      revision,
    };
  }
}
