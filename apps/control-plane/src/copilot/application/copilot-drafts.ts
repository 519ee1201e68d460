import { RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditLog } from '../../audit';
import {
  ChangePublisher,
  lockSet,
  nextStatus,
  RuleSetRepository,
  requireVersion,
  SaveRuleSet,
  SaveResult,
} from '../../rulesets';
import { ApprovalSettings } from '../../rulesets';
import { assertWorkflowName } from '../../shared';
import { ProvenanceRepository } from '../persistence/provenance.repository';
import { draftWasSubmitted, notACopilotDraft, provenanceNotFound } from './copilot-errors';
import { provenanceView, ProvenanceView } from './provenance-view';

export interface DiscardResult {
  workflowName: string;
  version: number;
  status: 'Rejected';
  discardedBy: string;
  discardedAt: string;
  reason: string;
  revision: number;
  provenance: ProvenanceView;
}

/**
 * The copilot's other use cases: read a version's provenance, discard a never-submitted copilot draft
 * (Draft → Rejected through the version lifecycle; the provenance row stays), and revise a copilot
 * draft (a person's edit: a new Draft version carrying the same AI original, so activation can tell
 * whether what goes live is what the model wrote).
 */
@Injectable()
export class CopilotDrafts {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(ApprovalSettings) private readonly approval: ApprovalSettings,
    @Inject(RuleSetRepository) private readonly versions: RuleSetRepository,
    @Inject(ProvenanceRepository) private readonly provenance: ProvenanceRepository,
    @Inject(AuditLog) private readonly audit: AuditLog,
    @Inject(ChangePublisher) private readonly publisher: ChangePublisher,
    @Inject(SaveRuleSet) private readonly saving: SaveRuleSet,
  ) {}

  async provenanceOf(workflowName: string, version: number): Promise<ProvenanceView> {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      await requireVersion(this.versions, m, workflowName, version);
      const row = await this.provenance.find(m, workflowName, version);
      if (!row) throw provenanceNotFound(workflowName, version);
      return provenanceView(row);
    });
  }

  async discard(workflowName: string, version: number, reason: string | undefined): Promise<DiscardResult> {
    assertWorkflowName(workflowName);
    const actor = RequestContext.actor();
    const tenantId = RequestContext.tenantId();
    const why = reason?.trim() || 'copilot draft discarded';
    const result = await this.uow.run(async (m) => {
      await lockSet(this.versions, m, workflowName);
      const v = await requireVersion(this.versions, m, workflowName, version, true);
      const row = await this.provenance.find(m, workflowName, version);
      if (!row) throw notACopilotDraft(workflowName, version);
      const status = nextStatus(v, 'discard', this.approval.requireApproval);
      if (v.submittedAt) throw draftWasSubmitted(workflowName, version);
      const now = new Date();
      await this.versions.markRejected(m, workflowName, version, status, actor, now, why);
      const revision = await this.versions.touch(m, workflowName, now, actor);
      await this.audit.append(m, tenantId, [
        // a discard is a rejection (Draft → Rejected): audited as REJECT, marked as the copilot's discard
        { workflowName, action: 'REJECT', actor, version, detail: `copilot-draft discard: ${why}` },
      ]);
      return { now, revision, row };
    });
    await this.publisher.announce(tenantId, workflowName, version, 'rejected', result.revision, actor);
    return {
      workflowName,
      version,
      status: 'Rejected',
      discardedBy: actor,
      discardedAt: result.now.toISOString(),
      reason: why,
      revision: result.revision,
      provenance: provenanceView(result.row),
    };
  }

  /**
   * A person's revision of a copilot draft: `document` saved as the next Draft version (validated and
   * audited like any save) with a provenance row that carries the original's AI hash, snapshot, time and
   * author; at activation its content is compared with that original.
   */
  async revise(
    workflowName: string,
    version: number,
    document: Record<string, unknown>,
    detail: string | undefined,
  ): Promise<SaveResult & { revisedFrom: number; provenance: ProvenanceView }> {
    assertWorkflowName(workflowName);
    const original = await this.uow.run(async (m) => {
      await requireVersion(this.versions, m, workflowName, version);
      const row = await this.provenance.find(m, workflowName, version);
      if (!row) throw notACopilotDraft(workflowName, version);
      return row;
    });
    let copy = original;
    const saved = await this.saving.execute(workflowName, {
      document,
      detail: detail?.trim() || `revision of copilot draft version ${version}`,
      pathPrefix: 'ruleSet',
      within: async (m, saved) => {
        copy = {
          ...original,
          id: randomUUID(),
          tenantId: saved.tenantId,
          version: saved.version,
          editedBeforeApproval: null,
          approvedAt: null,
        };
        await this.provenance.insert(m, copy);
      },
    });
    return { ...saved, revisedFrom: version, provenance: provenanceView(copy) };
  }
}
