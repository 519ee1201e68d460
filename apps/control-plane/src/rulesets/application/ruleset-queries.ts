import { AppError, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { AuditLog, AuditTrail, AuditVerification } from '../../audit';
import { assertWorkflowName, iso } from '../../shared';
import {
  diffRules,
  RuleSetDiff,
  rulesOf,
  RuleSetShape,
  validateRuleSetYielding,
  ValidationOutcome,
} from '@arbiter/rule-engine';
import { RuleRegistry } from '../domain/rule-registry';
import { RuleSetRepository } from '../persistence/ruleset.repository';
import { RuleSetErrors } from './ruleset-errors';
import { requireSet, requireVersion } from './ruleset-lookups';
import { versionDocument, versionSummary } from './version-views';

/**
 * The read side of rule sets: lists, versions, documents, exports, diffs, validation of a document
 * (nothing stored), the tenants that have rule sets, and a workflow's audit entries.
 */
@Injectable()
export class RuleSetQueries {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(RuleRegistry) private readonly registry: RuleRegistry,
    @Inject(RuleSetRepository) private readonly repo: RuleSetRepository,
    @Inject(AuditLog) private readonly audit: AuditLog,
    @Inject(AuditTrail) private readonly trail: AuditTrail,
  ) {}

  async list() {
    const rows = await this.uow.run((m) => this.repo.listSets(m));
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

  /** Whether the current tenant has a rule set of that name (row-level security keeps it to the tenant). */
  async exists(workflowName: string): Promise<boolean> {
    return (await this.uow.run((m) => this.repo.findSet(m, workflowName))) !== null;
  }

  async versions(workflowName: string, limit: number, offset: number) {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      const set = await requireSet(this.repo, m, workflowName);
      const rows = await this.repo.versionSummaries(m, workflowName, limit, offset);
      return {
        workflowName,
        activeVersion: set.activeVersion,
        totalVersions: set.latestVersion,
        limit,
        offset,
        versions: rows.map(versionSummary),
      };
    });
  }

  async version(workflowName: string, version: number) {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) =>
      versionDocument(await requireVersion(this.repo, m, workflowName, version)),
    );
  }

  async pendingApprovals() {
    const rows = await this.uow.run((m) => this.repo.pendingApprovals(m));
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
      const set = await requireSet(this.repo, m, workflowName);
      const target = version ?? set.activeVersion;
      if (!target)
        throw AppError.notFound(
          RuleSetErrors.NoActiveVersion,
          `Workflow '${workflowName}' has no active version; pass a version to export`,
        );
      return versionDocument(await requireVersion(this.repo, m, workflowName, target));
    });
  }

  /** Every version of a workflow with its document (file-store export). */
  async allVersions(workflowName: string) {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      const set = await requireSet(this.repo, m, workflowName);
      const rows = await this.repo.allVersions(m, workflowName);
      return { set, versions: rows.map(versionDocument) };
    });
  }

  async diff(workflowName: string, from: number, to: number): Promise<RuleSetDiff> {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      const a = await requireVersion(this.repo, m, workflowName, from);
      const b = await requireVersion(this.repo, m, workflowName, to);
      return diffRules(
        from,
        rulesOf(a.document, a.shape as RuleSetShape),
        to,
        rulesOf(b.document, b.shape as RuleSetShape),
      );
    });
  }

  /** The one validation of a document (its rules checked in slices that give the event loop back). */
  validate(workflowName: string, document: unknown): Promise<ValidationOutcome> {
    assertWorkflowName(workflowName);
    return validateRuleSetYielding(document, workflowName, this.registry);
  }

  /** Tenants known to the control plane (cross-tenant read for administrators). */
  async tenants() {
    const rows = await this.uow.run((m) => this.repo.tenantSummaries(m), { acrossTenants: true });
    return {
      tenants: rows.map((r) => ({
        tenantId: r.tenant_id,
        workflows: Number(r.workflows),
        lastModified: iso(r.last_modified),
      })),
    };
  }

  /** A page of a workflow's audit entries, newest first. */
  async auditPage(workflowName: string, page: number, pageSize: number) {
    assertWorkflowName(workflowName);
    return this.uow.run(async (m) => {
      await requireSet(this.repo, m, workflowName);
      const [rows, total] = await this.audit.page(m, workflowName, (page - 1) * pageSize, pageSize);
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

  /** Verifies the tenant's whole audit chain, which a workflow's entries are part of. */
  async verifyAudit(workflowName: string): Promise<AuditVerification> {
    assertWorkflowName(workflowName);
    const tenantId = RequestContext.tenantId();
    const chain = await this.uow.run(async (m) => {
      await requireSet(this.repo, m, workflowName);
      return this.audit.chain(m, tenantId);
    });
    return this.trail.verify(tenantId, chain, workflowName);
  }
}
