import { RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { AuditLog } from '../../audit';
import { assertWorkflowName } from '../../shared';
import { RuleSetRepository } from '../persistence/ruleset.repository';
import { ChangePublisher } from './change-publisher';
import { ruleSetNotFound } from './ruleset-errors';

/**
 * Invalidates the cached rule sets of one workflow, or of every workflow of the tenant, on every
 * node: their revisions are raised (audited as INVALIDATE) and each change is published after commit.
 */
@Injectable()
export class InvalidateRuleSets {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(RuleSetRepository) private readonly repo: RuleSetRepository,
    @Inject(AuditLog) private readonly audit: AuditLog,
    @Inject(ChangePublisher) private readonly publisher: ChangePublisher,
  ) {}

  async execute(workflowName: string | undefined, actorInput?: string | null, detail?: string | null) {
    if (workflowName) assertWorkflowName(workflowName);
    const actor = RequestContext.actor(actorInput);
    const tenantId = RequestContext.tenantId();
    const now = new Date();
    const changed = await this.uow.run(async (m) => {
      const bumped = await this.repo.bumpRevisions(m, workflowName, now, actor);
      if (workflowName && bumped.length === 0) throw ruleSetNotFound(workflowName);
      await this.audit.append(m, tenantId, [
        {
          workflowName: workflowName ?? '*',
          action: 'INVALIDATE',
          actor,
          version: null,
          detail: detail ?? null,
        },
      ]);
      return bumped;
    });
    for (const r of changed)
      await this.publisher.announce(
        tenantId,
        r.workflow_name,
        r.active_version,
        'invalidated',
        Number(r.revision),
        actor,
      );
    return {
      tenantId,
      workflowName: workflowName ?? null,
      invalidated: changed.map((r) => ({ workflowName: r.workflow_name, revision: Number(r.revision) })),
      invalidatedAt: now.toISOString(),
    };
  }
}
