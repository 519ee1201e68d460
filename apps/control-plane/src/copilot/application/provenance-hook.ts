import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { LifecycleHook, LifecycleHooks, VersionTransition } from '../../rulesets';
import { draftHash } from '../domain/draft-hash';
import { ProvenanceRepository } from '../persistence/provenance.repository';

/**
 * Keeps a copilot draft's provenance in step with its version, inside the transition's transaction:
 * approval sets `ApprovedAt`; activation resolves `EditedBeforeApproval` (the canonical hash of the
 * activated content ≠ `AiOriginalHash`) and adds to the signed ACTIVATE entry whether a person edited
 * the model's draft. Versions without a provenance row are left alone.
 */
@Injectable()
export class ProvenanceHook implements LifecycleHook, OnModuleInit {
  constructor(
    @Inject(LifecycleHooks) private readonly hooks: LifecycleHooks,
    @Inject(ProvenanceRepository) private readonly provenance: ProvenanceRepository,
  ) {}

  onModuleInit(): void {
    this.hooks.register(this);
  }

  async onTransition(m: EntityManager, t: VersionTransition): Promise<string | null> {
    const row = await this.provenance.find(m, t.workflowName, t.version);
    if (!row) return null;
    if (t.action === 'approve') {
      await this.provenance.markApproved(m, t.workflowName, t.version, t.at);
      return null;
    }
    const activatedHash = draftHash(t.document);
    const edited = activatedHash !== row.aiOriginalHash;
    await this.provenance.resolveEdited(m, t.workflowName, t.version, edited);
    return (
      `copilot draft: editedBeforeApproval=${edited} generatedBy=${row.generatedBy} ` +
      `aiOriginalHash=${row.aiOriginalHash} activatedHash=${activatedHash}`
    );
  }
}
