import { AppError, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuditLog } from '../../audit';
import { assertWorkflowName } from '../../shared';
import { RuleSetShape, validateRuleSetYielding } from '@arbiter/rule-engine';
import { RuleRegistry } from '../domain/rule-registry';
import { RuleSetRepository } from '../persistence/ruleset.repository';
import { ApprovalSettings } from '../rulesets.settings';
import { ActivateVersion } from './activate-version';
import { ChangePublisher } from './change-publisher';
import { invalidRuleSet, RuleSetErrors } from './ruleset-errors';
import { ScenarioGate } from './scenario-gate';

export interface SaveInput {
  document: unknown;
  activateAfterSave?: boolean;
  actor?: string | null;
  detail?: string | null;
  /** Prefix of error paths (`ruleSet` for the `{ ruleSet }` form, empty for `{ rules }`). */
  pathPrefix?: string;
  action?: 'SAVE' | 'IMPORT';
  /**
   * More work in the save's transaction once the version row exists (the copilot's provenance row);
   * a throw rolls the whole save back.
   */
  within?: (m: EntityManager, saved: SavedVersion) => Promise<void>;
}

/** The version a save just wrote, as `SaveInput.within` sees it. */
export interface SavedVersion {
  tenantId: string;
  workflowName: string;
  version: number;
  createdAt: Date;
  createdBy: string;
}

export interface SaveResult {
  workflowName: string;
  version: number;
  /** `draft`, or `active` when the save also activated it (approval off + activateAfterSave). */
  status: string;
  createdAt: string;
  createdBy: string;
  activated: boolean;
  revision: number;
  shape: RuleSetShape;
}

/**
 * Validates a rule set document and stores it as the workflow's next, immutable Draft version (audited
 * as SAVE or IMPORT); with `activateAfterSave` while approval is off, activates it in the same
 * transaction. Changes are published after commit.
 */
@Injectable()
export class SaveRuleSet {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(ApprovalSettings) private readonly settings: ApprovalSettings,
    @Inject(RuleRegistry) private readonly registry: RuleRegistry,
    @Inject(RuleSetRepository) private readonly repo: RuleSetRepository,
    @Inject(AuditLog) private readonly audit: AuditLog,
    @Inject(ActivateVersion) private readonly activation: ActivateVersion,
    @Inject(ChangePublisher) private readonly publisher: ChangePublisher,
    @Inject(ScenarioGate) private readonly gate: ScenarioGate,
  ) {}

  async execute(workflowName: string, input: SaveInput): Promise<SaveResult> {
    assertWorkflowName(workflowName);
    const outcome = await validateRuleSetYielding(input.document, workflowName, this.registry);
    if (!outcome.valid) throw invalidRuleSet(outcome.errors, input.pathPrefix ?? '');
    const actor = RequestContext.actor(input.actor);
    const tenantId = RequestContext.tenantId();
    const activate = !!input.activateAfterSave && !this.settings.requireApproval;
    // a version that does not exist yet has no passing scenario gate: refused before anything is written
    if (activate && this.gate.required)
      throw AppError.conflict(
        RuleSetErrors.ScenarioGateNotPassed,
        `RuleControlPlane:RequireScenarioGate is on: save '${workflowName}' without activateAfterSave, run its ` +
          'scenario gate, then activate the version',
      );
    const detail = input.detail ?? null;
    const now = new Date();
    const result = await this.uow.run(async (m) => {
      const { version, revision } = await this.repo.nextVersion(m, tenantId, workflowName, now, actor);
      await this.repo.insertDraft(m, {
        tenantId,
        workflowName,
        version,
        shape: outcome.shape!,
        document: input.document,
        changeDescription: detail,
        createdAt: now,
        createdBy: actor,
      });
      await this.audit.append(m, tenantId, [
        { workflowName, action: input.action ?? 'SAVE', actor, version, detail },
      ]);
      await input.within?.(m, { tenantId, workflowName, version, createdAt: now, createdBy: actor });
      if (!activate) return { version, revision };
      const activated = await this.activation.within(m, tenantId, workflowName, version, actor, detail);
      return { version, revision: activated.revision };
    });
    await this.publisher.announce(tenantId, workflowName, result.version, 'saved', result.revision, actor);
    if (activate)
      await this.publisher.announce(
        tenantId,
        workflowName,
        result.version,
        'activated',
        result.revision,
        actor,
      );
    return {
      workflowName,
      version: result.version,
      status: activate ? 'active' : 'draft',
      createdAt: now.toISOString(),
      createdBy: actor,
      activated: activate,
      revision: result.revision,
      shape: outcome.shape!,
    };
  }
}
