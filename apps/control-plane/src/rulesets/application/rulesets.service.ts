import { AppError, RequestContext, UnitOfWork } from '@arbiter/platform';
import { RuleSetChangedEvent } from '@arbiter/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsSelect } from 'typeorm';
import { AuditInput, AuditLog, toSignedEntry } from '../audit/audit-log';
import { ChainVerification, verifyChain } from '../audit/audit-chain';
import { AuditSigner } from '../audit/audit-signer';
import {
  diffRules,
  RuleSetDiff,
  rulesOf,
  RuleSetShape,
  validateRuleSet,
  ValidationOutcome,
} from '../domain/ruleset-document';
import { RuleRegistry } from '../domain/rule-registry';
import {
  RuleSetAuditEntity,
  RuleSetEntity,
  RuleSetStatus,
  RuleSetVersionEntity,
} from '../persistence/entities';
import { RuleControlPlaneSettings } from '../../settings/control-plane.settings';
import { ChangePublisher } from './change-publisher';
import { assertWorkflowName, invalidRuleSet, RuleSetErrors } from './errors';

export interface SaveInput {
  document: unknown;
  activateAfterSave?: boolean;
  actor?: string | null;
  detail?: string | null;
  /** Prefix of error paths (`ruleSet` for the `{ ruleSet }` form, empty for `{ rules }`). */
  pathPrefix?: string;
  action?: 'SAVE' | 'IMPORT';
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

export interface ActivationResult {
  workflowName: string;
  version: number;
  status: 'Active';
  activatedAt: string;
  activatedBy: string;
  previousActiveVersion: number | null;
  revision: number;
}

const SUMMARY_COLUMNS = Object.fromEntries(
  [
    'tenantId',
    'workflowName',
    'version',
    'status',
    'shape',
    'changeDescription',
    'createdAt',
    'createdBy',
    'submittedBy',
    'submittedAt',
    'approvedBy',
    'approvedAt',
    'activatedBy',
    'activatedAt',
    'archivedAt',
    'rejectedBy',
    'rejectedAt',
    'rejectionReason',
  ].map((c) => [c, true]),
) as FindOptionsSelect<RuleSetVersionEntity>;

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/**
 * The application service behind every rule-set route (family A, family B, approvals aliases, the
 * file store): storage and versions, validation, the lifecycle state machine, signed audit in the
 * same transaction, and change events after commit.
 */
@Injectable()
export class RuleSetsService {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(RuleControlPlaneSettings) private readonly settings: RuleControlPlaneSettings,
    @Inject(RuleRegistry) private readonly registry: RuleRegistry,
    @Inject(AuditLog) private readonly audit: AuditLog,
    @Inject(AuditSigner) private readonly signer: AuditSigner,
    @Inject(ChangePublisher) private readonly publisher: ChangePublisher,
  ) {}

  get requireApproval(): boolean {
    return this.settings.requireApproval;
  }

  // ------------------------------------------------------------------------------------------ reads

  async list() {
    const rows = await this.uow.run((m) =>
      m.getRepository(RuleSetEntity).find({ order: { workflowName: 'ASC' } }),
    );
    return {
      rulesets: rows.map((r) => ({
        workflowName: r.workflowName,
        activeVersion: r.activeVersion,
        totalVersions: r.latestVersion,
        lastModified: iso(r.modifiedAt),
        modifiedBy: r.modifiedBy,
        revision: Number(r.revision),
      })),
    };
  }

  async versions(workflowName: string, limit: number, offset: number) {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      const set = await this.requireSet(m, workflowName);
      const rows = await m.getRepository(RuleSetVersionEntity).find({
        // The list never carries documents: reading the jsonb of every row would dominate its cost.
        select: SUMMARY_COLUMNS,
        where: { workflowName },
        order: { version: 'DESC' },
        skip: offset,
        take: limit,
      });
      return {
        workflowName,
        activeVersion: set.activeVersion,
        totalVersions: set.latestVersion,
        limit,
        offset,
        versions: rows.map((v) => this.summary(v)),
      };
    });
  }

  async version(workflowName: string, version: number) {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => this.document(await this.requireVersion(m, workflowName, version)));
  }

  async pendingApprovals() {
    const rows = await this.uow.run((m) =>
      m.getRepository(RuleSetVersionEntity).find({
        where: { status: 'PendingApproval' },
        order: { submittedAt: 'ASC' },
      }),
    );
    return {
      items: rows.map((v) => ({
        workflowName: v.workflowName,
        version: v.version,
        status: v.status,
        submittedBy: v.submittedBy,
        submittedAt: iso(v.submittedAt),
        createdBy: v.createdBy,
        createdAt: iso(v.createdAt),
        changeDescription: v.changeDescription,
      })),
      total: rows.length,
    };
  }

  /** The document to export: `version`, or the active one when omitted. */
  async exportDocument(workflowName: string, version?: number) {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      const set = await this.requireSet(m, workflowName);
      const target = version ?? set.activeVersion;
      if (!target)
        throw AppError.notFound(
          RuleSetErrors.NoActiveVersion,
          `Workflow '${workflowName}' has no active version; pass a version to export`,
        );
      return this.document(await this.requireVersion(m, workflowName, target));
    });
  }

  async auditPage(workflowName: string, page: number, pageSize: number) {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      await this.requireSet(m, workflowName);
      const [rows, total] = await m.getRepository(RuleSetAuditEntity).findAndCount({
        where: { workflowName },
        order: { seq: 'DESC' },
        skip: (page - 1) * pageSize,
        take: pageSize,
      });
      return {
        entries: rows.map((r) => ({
          timestamp: iso(r.timestamp),
          actor: r.actor,
          action: r.action,
          version: r.version,
          detail: r.detail,
          status: r.status,
          seq: Number(r.seq),
          hash: r.hash,
          prevHash: r.prevHash,
          signature: r.signature,
          keyId: r.keyId,
        })),
        total,
        page,
        pageSize,
      };
    });
  }

  async diff(workflowName: string, from: number, to: number): Promise<RuleSetDiff> {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      const a = await this.requireVersion(m, workflowName, from);
      const b = await this.requireVersion(m, workflowName, to);
      return diffRules(
        from,
        rulesOf(a.document, a.shape as RuleSetShape),
        to,
        rulesOf(b.document, b.shape as RuleSetShape),
      );
    });
  }

  validate(workflowName: string, document: unknown): ValidationOutcome {
    assertWorkflowName(workflowName);
    return validateRuleSet(document, workflowName, this.registry);
  }

  /** Tenants known to the control plane (cross-tenant read for administrators). */
  async tenants() {
    const rows: { tenant_id: string; workflows: string; last_modified: Date }[] = await this.uow.run(
      (m) =>
        m.query(
          `SELECT tenant_id, count(*) AS workflows, max(modified_at) AS last_modified
             FROM rule_sets GROUP BY tenant_id ORDER BY tenant_id`,
        ),
      { acrossTenants: true },
    );
    return {
      tenants: rows.map((r) => ({
        tenantId: r.tenant_id,
        workflows: Number(r.workflows),
        lastModified: iso(r.last_modified),
      })),
    };
  }

  /** Verifies the tenant's whole audit chain (a workflow's entries are part of it). */
  async verifyAudit(
    workflowName?: string,
  ): Promise<ChainVerification & { workflowName: string | null; keyId: string }> {
    if (workflowName) assertWorkflowName(workflowName);
    const tenantId = RequestContext.tenantId();
    const { entries, head } = await this.uow.run(async (m) => {
      if (workflowName) await this.requireSet(m, workflowName);
      return this.audit.chain(m, tenantId);
    });
    const result = verifyChain(tenantId, entries, { [this.signer.keyId]: this.signer.publicKey }, head);
    return { ...result, workflowName: workflowName ?? null, keyId: this.signer.keyId };
  }

  async auditChain() {
    const tenantId = RequestContext.tenantId();
    const chain = await this.uow.run((m) => this.audit.chain(m, tenantId));
    return { tenantId, keyId: this.signer.keyId, ...chain };
  }

  /** Every version of a workflow with its document (file-store export). */
  async allVersions(workflowName: string) {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      const set = await this.requireSet(m, workflowName);
      const rows = await m
        .getRepository(RuleSetVersionEntity)
        .find({ where: { workflowName }, order: { version: 'ASC' } });
      return { set, versions: rows.map((v) => this.document(v)) };
    });
  }

  // ----------------------------------------------------------------------------------------- writes

  async save(workflowName: string, input: SaveInput): Promise<SaveResult> {
    assertWorkflowName(workflowName);
    const outcome = validateRuleSet(input.document, workflowName, this.registry);
    if (!outcome.valid) throw invalidRuleSet(outcome.errors, input.pathPrefix ?? '');
    const actor = RequestContext.actor(input.actor);
    const tenantId = RequestContext.tenantId();
    const activate = !!input.activateAfterSave && !this.requireApproval;
    const now = new Date();
    const result = await this.uow.run(async (m) => {
      const [counter] = await m.query(
        `INSERT INTO rule_sets (tenant_id, workflow_name, latest_version, active_version, revision, created_at, modified_at, modified_by)
         VALUES ($1, $2, 1, NULL, 1, $3, $3, $4)
         ON CONFLICT (tenant_id, workflow_name) DO UPDATE
           SET latest_version = rule_sets.latest_version + 1, revision = rule_sets.revision + 1,
               modified_at = EXCLUDED.modified_at, modified_by = EXCLUDED.modified_by
         RETURNING latest_version, revision`,
        [tenantId, workflowName, now, actor],
      );
      const version = Number(counter.latest_version);
      await m.getRepository(RuleSetVersionEntity).insert({
        tenantId,
        workflowName,
        version,
        status: 'Draft',
        shape: outcome.shape!,
        document: input.document as never,
        changeDescription: input.detail ?? null,
        createdAt: now,
        createdBy: actor,
      });
      await this.audit.append(m, tenantId, [
        { workflowName, action: input.action ?? 'SAVE', actor, version, detail: input.detail ?? null },
      ]);
      let revision = Number(counter.revision);
      if (activate)
        revision = (await this.activateIn(m, tenantId, workflowName, version, actor, input.detail ?? null))
          .revision;
      return { version, revision };
    });
    await this.publish(tenantId, workflowName, result.version, 'saved', result.revision, actor);
    if (activate)
      await this.publish(tenantId, workflowName, result.version, 'activated', result.revision, actor);
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

  async activate(workflowName: string, version: number, actorInput?: string | null, detail?: string | null) {
    assertWorkflowName(workflowName);
    const actor = RequestContext.actor(actorInput);
    const tenantId = RequestContext.tenantId();
    const result = await this.uow.run((m) =>
      this.activateIn(m, tenantId, workflowName, version, actor, detail ?? null),
    );
    await this.publish(tenantId, workflowName, version, 'activated', result.revision, actor);
    return result;
  }

  private async activateIn(
    m: EntityManager,
    tenantId: string,
    workflowName: string,
    version: number,
    actor: string,
    detail: string | null,
  ): Promise<ActivationResult> {
    const set = await this.lockSet(m, workflowName);
    const target = await this.requireVersion(m, workflowName, version, true);
    const allowed: RuleSetStatus[] = this.requireApproval ? ['Approved'] : ['Approved', 'Draft'];
    if (!allowed.includes(target.status)) {
      if (this.requireApproval && ['Draft', 'PendingApproval'].includes(target.status))
        throw AppError.conflict(
          RuleSetErrors.ApprovalRequired,
          `Version ${version} of '${workflowName}' is ${target.status}: approval is required before activation`,
        );
      throw this.wrongState(workflowName, version, target.status, 'activate');
    }
    const now = new Date();
    const previous = set.activeVersion;
    const audits: AuditInput[] = [];
    if (previous && previous !== version) {
      await m.query(
        `UPDATE rule_set_versions SET status = 'Archived', archived_at = $3 WHERE workflow_name = $1 AND version = $2`,
        [workflowName, previous, now],
      );
      audits.push({
        workflowName,
        action: 'ARCHIVE',
        actor,
        version: previous,
        detail: `superseded by version ${version}`,
      });
    }
    await m.query(
      `UPDATE rule_set_versions SET status = 'Active', activated_at = $3, activated_by = $4 WHERE workflow_name = $1 AND version = $2`,
      [workflowName, version, now, actor],
    );
    const [row] = await m.query(
      `UPDATE rule_sets SET active_version = $2, revision = revision + 1, modified_at = $3, modified_by = $4
        WHERE workflow_name = $1 RETURNING revision`,
      [workflowName, version, now, actor],
    );
    audits.push({ workflowName, action: 'ACTIVATE', actor, version, detail });
    await this.audit.append(m, tenantId, audits);
    return {
      workflowName,
      version,
      status: 'Active',
      activatedAt: now.toISOString(),
      activatedBy: actor,
      previousActiveVersion: previous ?? null,
      revision: Number(row[0]?.revision ?? row.revision),
    };
  }

  async submit(workflowName: string, version: number, actorInput: string | null | undefined, detail: string) {
    return this.transition(workflowName, version, actorInput, 'SUBMIT', detail, async (m, v, actor, now) => {
      if (v.status !== 'Draft') throw this.wrongState(workflowName, version, v.status, 'submit');
      await m.query(
        `UPDATE rule_set_versions SET status = 'PendingApproval', submitted_by = $3, submitted_at = $4,
                rejected_by = NULL, rejected_at = NULL, rejection_reason = NULL
          WHERE workflow_name = $1 AND version = $2`,
        [workflowName, version, actor, now],
      );
      return {
        status: 'PendingApproval' as const,
        change: 'submitted' as const,
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
    return this.transition(workflowName, version, actorInput, 'APPROVE', detail, async (m, v, actor, now) => {
      if (v.status !== 'PendingApproval') throw this.wrongState(workflowName, version, v.status, 'approve');
      if (v.submittedBy && v.submittedBy.toLowerCase() === actor.toLowerCase())
        throw AppError.conflict(
          RuleSetErrors.SelfApproval,
          `'${actor}' submitted version ${version} of '${workflowName}' and cannot approve it (maker-checker)`,
        );
      await m.query(
        `UPDATE rule_set_versions SET status = 'Approved', approved_by = $3, approved_at = $4 WHERE workflow_name = $1 AND version = $2`,
        [workflowName, version, actor, now],
      );
      return {
        status: 'Approved' as const,
        change: 'approved' as const,
        extra: { approvedBy: actor, approvedAt: now.toISOString() },
      };
    });
  }

  /**
   * Reject: back to Draft (the control-plane approval flow), or with `final` to the terminal Rejected
   * status (the runtime lifecycle's "approval denial": never activatable, never resubmitted).
   */
  async reject(
    workflowName: string,
    version: number,
    actorInput: string | null | undefined,
    reason: string,
    final = false,
  ) {
    return this.transition(workflowName, version, actorInput, 'REJECT', reason, async (m, v, actor, now) => {
      if (v.status !== 'PendingApproval') throw this.wrongState(workflowName, version, v.status, 'reject');
      const status = final ? 'Rejected' : 'Draft';
      await m.query(
        `UPDATE rule_set_versions SET status = $6, rejected_by = $3, rejected_at = $4, rejection_reason = $5
          WHERE workflow_name = $1 AND version = $2`,
        [workflowName, version, actor, now, reason, status],
      );
      return {
        status: status as RuleSetStatus,
        change: 'rejected' as const,
        extra: { rejectedBy: actor, rejectedAt: now.toISOString(), reason },
      };
    });
  }

  private async transition(
    workflowName: string,
    version: number,
    actorInput: string | null | undefined,
    action: 'SUBMIT' | 'APPROVE' | 'REJECT',
    detail: string,
    apply: (
      m: EntityManager,
      v: RuleSetVersionEntity,
      actor: string,
      now: Date,
    ) => Promise<{
      status: RuleSetStatus;
      change: RuleSetChangedEvent['change'];
      extra: Record<string, unknown>;
    }>,
  ) {
    assertWorkflowName(workflowName);
    if (!this.requireApproval)
      throw AppError.notFound(
        RuleSetErrors.ApprovalDisabled,
        'Approval routes exist only when RuleControlPlane:RequireApproval is true',
      );
    const actor = RequestContext.actor(actorInput);
    const tenantId = RequestContext.tenantId();
    const result = await this.uow.run(async (m) => {
      await this.lockSet(m, workflowName);
      const v = await this.requireVersion(m, workflowName, version, true);
      const now = new Date();
      const outcome = await apply(m, v, actor, now);
      const [row] = await m.query(
        `UPDATE rule_sets SET revision = revision + 1, modified_at = $2, modified_by = $3 WHERE workflow_name = $1 RETURNING revision`,
        [workflowName, now, actor],
      );
      await this.audit.append(m, tenantId, [{ workflowName, action, actor, version, detail }]);
      return { ...outcome, revision: Number(row[0]?.revision ?? row.revision) };
    });
    await this.publish(tenantId, workflowName, version, result.change, result.revision, actor);
    return {
      workflowName,
      version,
      status: result.status,
      ...result.extra,
      detail,
      revision: result.revision,
    };
  }

  /** Invalidates caches (one workflow, or every workflow of the tenant) on every node; audited. */
  async invalidate(workflowName: string | undefined, actorInput?: string | null, detail?: string | null) {
    if (workflowName) assertWorkflowName(workflowName);
    const actor = RequestContext.actor(actorInput);
    const tenantId = RequestContext.tenantId();
    const now = new Date();
    const changed = await this.uow.run(async (m) => {
      const rows: { workflow_name: string; revision: string; active_version: number | null }[] = workflowName
        ? await m.query(
            `UPDATE rule_sets SET revision = revision + 1, modified_at = $2, modified_by = $3 WHERE workflow_name = $1
             RETURNING workflow_name, revision, active_version`,
            [workflowName, now, actor],
          )
        : await m.query(
            `UPDATE rule_sets SET revision = revision + 1 RETURNING workflow_name, revision, active_version`,
          );
      const list = (Array.isArray(rows[0]) ? rows[0] : rows) as typeof rows;
      if (workflowName && list.length === 0)
        throw AppError.notFound(RuleSetErrors.RuleSetNotFound, `Workflow '${workflowName}' not found`);
      await this.audit.append(m, tenantId, [
        {
          workflowName: workflowName ?? '*',
          action: 'INVALIDATE',
          actor,
          version: null,
          detail: detail ?? null,
        },
      ]);
      return list;
    });
    for (const r of changed)
      await this.publish(
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

  // ---------------------------------------------------------------------------------------- helpers

  private async publish(
    tenantId: string,
    workflowName: string,
    version: number | null,
    change: RuleSetChangedEvent['change'],
    revision: number,
    actor: string,
  ) {
    await this.publisher.publish({
      workflowName,
      tenantId,
      version,
      change,
      revision,
      actor,
      occurredAt: new Date().toISOString(),
    });
  }

  private wrongState(workflowName: string, version: number, status: string, action: string) {
    return AppError.conflict(
      RuleSetErrors.InvalidStateTransition,
      `Cannot ${action} version ${version} of '${workflowName}': it is ${status}`,
    );
  }

  private async requireSet(m: EntityManager, workflowName: string): Promise<RuleSetEntity> {
    const set = await m.getRepository(RuleSetEntity).findOne({ where: { workflowName } });
    if (!set) throw AppError.notFound(RuleSetErrors.RuleSetNotFound, `Workflow '${workflowName}' not found`);
    return set;
  }

  private async lockSet(m: EntityManager, workflowName: string): Promise<{ activeVersion: number | null }> {
    const [row] = await m.query(`SELECT active_version FROM rule_sets WHERE workflow_name = $1 FOR UPDATE`, [
      workflowName,
    ]);
    if (!row) throw AppError.notFound(RuleSetErrors.RuleSetNotFound, `Workflow '${workflowName}' not found`);
    return { activeVersion: row.active_version };
  }

  private async requireVersion(m: EntityManager, workflowName: string, version: number, lock = false) {
    const qb = m
      .getRepository(RuleSetVersionEntity)
      .createQueryBuilder('v')
      .where('v.workflow_name = :workflowName AND v.version = :version', { workflowName, version });
    if (lock) qb.setLock('pessimistic_write');
    const row = await qb.getOne();
    if (!row) {
      await this.requireSet(m, workflowName);
      throw AppError.notFound(
        RuleSetErrors.VersionNotFound,
        `Version ${version} of '${workflowName}' not found`,
      );
    }
    return row;
  }

  private summary(v: RuleSetVersionEntity) {
    return {
      workflowName: v.workflowName,
      version: v.version,
      status: v.status,
      shape: v.shape,
      createdAt: iso(v.createdAt),
      createdBy: v.createdBy,
      changeDescription: v.changeDescription,
      submittedBy: v.submittedBy,
      submittedAt: iso(v.submittedAt),
      approvedBy: v.approvedBy,
      approvedAt: iso(v.approvedAt),
      activatedBy: v.activatedBy,
      activatedAt: iso(v.activatedAt),
      archivedAt: iso(v.archivedAt),
      rejectedBy: v.rejectedBy,
      rejectedAt: iso(v.rejectedAt),
      rejectionReason: v.rejectionReason,
    };
  }

  document(v: RuleSetVersionEntity) {
    const doc = v.document;
    const rules =
      v.shape === 'rules' || v.shape === 'code-based'
        ? (doc.rules as unknown[])
        : rulesOf(doc, v.shape as RuleSetShape);
    return {
      ...this.summary(v),
      rules,
      decisionTables: (doc.decisionTables as unknown[] | undefined) ?? [],
      ruleSet: doc,
    };
  }
}

export { toSignedEntry };
