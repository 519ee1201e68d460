import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsSelect } from 'typeorm';
import type { RuleSetStatus } from '../domain/version-lifecycle';
import { RuleSetEntity, RuleSetVersionEntity } from './entities';

/** Every column of a version but its document (lists never read the jsonb of every row). */
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

/** A workflow whose revision was raised by an invalidation. */
export interface BumpedRevision {
  workflow_name: string;
  revision: string;
  active_version: number | null;
}

/** The version of a workflow that stands for it: the active one, else the latest. */
export interface CurrentVersion {
  workflowName: string;
  /** The active version, or the latest when none is active. */
  version: number;
  status: string;
  shape: string;
  activeVersion: number | null;
  document: Record<string, unknown>;
}

export interface NewDraft {
  tenantId: string;
  workflowName: string;
  version: number;
  shape: string;
  document: unknown;
  changeDescription: string | null;
  createdAt: Date;
  createdBy: string;
}

/**
 * `UPDATE … RETURNING` through `EntityManager.query` answers `[rows, affected]` on the pg driver and
 * the rows alone on PGlite: the rows either way.
 */
function returnedRows<T>(result: unknown): T[] {
  const rows = result as unknown[];
  return (Array.isArray(rows[0]) ? rows[0] : rows) as T[];
}

/**
 * Rule sets (`rule_sets`: one row per workflow with its version counter, active version and change
 * revision) and their versions (`rule_set_versions`), inside the caller's unit of work (row-level
 * security: the unit of work's tenant). The only place that reads or writes these tables.
 */
@Injectable()
export class RuleSetRepository {
  // ------------------------------------------------------------------------------------------ reads

  listSets(m: EntityManager): Promise<RuleSetEntity[]> {
    return m.getRepository(RuleSetEntity).find({ order: { workflowName: 'ASC' } });
  }

  findSet(m: EntityManager, workflowName: string): Promise<RuleSetEntity | null> {
    return m.getRepository(RuleSetEntity).findOne({ where: { workflowName } });
  }

  /** Locks the workflow's row (`FOR UPDATE`) for a lifecycle change; null when there is none. */
  async lockSet(m: EntityManager, workflowName: string): Promise<{ activeVersion: number | null } | null> {
    const [row] = await m.query(`SELECT active_version FROM rule_sets WHERE workflow_name = $1 FOR UPDATE`, [
      workflowName,
    ]);
    return row ? { activeVersion: row.active_version ?? null } : null;
  }

  /** One version with its document (`lock`: `FOR UPDATE`, for a lifecycle change). */
  findVersion(
    m: EntityManager,
    workflowName: string,
    version: number,
    lock = false,
  ): Promise<RuleSetVersionEntity | null> {
    const qb = m
      .getRepository(RuleSetVersionEntity)
      .createQueryBuilder('v')
      .where('v.workflow_name = :workflowName AND v.version = :version', { workflowName, version });
    if (lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  /** A page of a workflow's versions, newest first, without their documents. */
  versionSummaries(
    m: EntityManager,
    workflowName: string,
    limit: number,
    offset: number,
  ): Promise<RuleSetVersionEntity[]> {
    return m.getRepository(RuleSetVersionEntity).find({
      select: SUMMARY_COLUMNS,
      where: { workflowName },
      order: { version: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  /** Every version of a workflow with its document, oldest first. */
  allVersions(m: EntityManager, workflowName: string): Promise<RuleSetVersionEntity[]> {
    return m.getRepository(RuleSetVersionEntity).find({ where: { workflowName }, order: { version: 'ASC' } });
  }

  /** Versions waiting for approval, oldest submission first. */
  pendingApprovals(m: EntityManager): Promise<RuleSetVersionEntity[]> {
    return m.getRepository(RuleSetVersionEntity).find({
      where: { status: 'PendingApproval' },
      order: { submittedAt: 'ASC' },
    });
  }

  /**
   * The current (active, else latest) version of one workflow, or of every workflow by name when
   * `workflowName` is null, with its document: one statement.
   */
  async currentVersions(m: EntityManager, workflowName: string | null): Promise<CurrentVersion[]> {
    const rows: Record<string, any>[] = await m.query(
      `SELECT s.workflow_name, s.active_version, v.version, v.status, v.shape, v.document
         FROM rule_sets s
         JOIN rule_set_versions v
           ON v.tenant_id = s.tenant_id AND v.workflow_name = s.workflow_name
          AND v.version = COALESCE(s.active_version, s.latest_version)
        WHERE $1::text IS NULL OR s.workflow_name = $1::text
        ORDER BY s.workflow_name`,
      [workflowName],
    );
    return rows.map((r) => ({
      workflowName: r.workflow_name,
      version: Number(r.version),
      status: r.status,
      shape: r.shape,
      activeVersion: r.active_version === null ? null : Number(r.active_version),
      document: typeof r.document === 'string' ? JSON.parse(r.document) : r.document,
    }));
  }

  /** Tenants that own at least one rule set (run across tenants). */
  async ownerTenants(m: EntityManager): Promise<string[]> {
    const rows: { tenant_id: string }[] = await m.query(`SELECT DISTINCT tenant_id FROM rule_sets`);
    return rows.map((r) => r.tenant_id);
  }

  /** Per tenant: how many workflows and the last change (run across tenants). */
  tenantSummaries(
    m: EntityManager,
  ): Promise<{ tenant_id: string; workflows: string; last_modified: Date }[]> {
    return m.query(
      `SELECT tenant_id, count(*) AS workflows, max(modified_at) AS last_modified
         FROM rule_sets GROUP BY tenant_id ORDER BY tenant_id`,
    );
  }

  /** The workflows (of every tenant, run across tenants) that have no version `version`. */
  workflowsWithoutVersion(
    m: EntityManager,
    version: number,
  ): Promise<{ tenant_id: string; workflow_name: string }[]> {
    return m.query(
      `SELECT tenant_id, workflow_name FROM rule_sets WHERE latest_version < $1 ORDER BY tenant_id, workflow_name`,
      [version],
    );
  }

  /** Every workflow's revision (run across tenants: the cache's safety-net poll). */
  revisions(m: EntityManager): Promise<{ tenant_id: string; workflow_name: string; revision: string }[]> {
    return m.query(`SELECT tenant_id, workflow_name, revision FROM rule_sets`);
  }

  // ----------------------------------------------------------------------------------------- writes

  /**
   * Reserves the next version number of a workflow (creating its row on the first save) and raises
   * its revision.
   */
  async nextVersion(
    m: EntityManager,
    tenantId: string,
    workflowName: string,
    now: Date,
    actor: string,
  ): Promise<{ version: number; revision: number }> {
    const [counter] = await m.query(
      `INSERT INTO rule_sets (tenant_id, workflow_name, latest_version, active_version, revision, created_at, modified_at, modified_by)
       VALUES ($1, $2, 1, NULL, 1, $3, $3, $4)
       ON CONFLICT (tenant_id, workflow_name) DO UPDATE
         SET latest_version = rule_sets.latest_version + 1, revision = rule_sets.revision + 1,
             modified_at = EXCLUDED.modified_at, modified_by = EXCLUDED.modified_by
       RETURNING latest_version, revision`,
      [tenantId, workflowName, now, actor],
    );
    return { version: Number(counter.latest_version), revision: Number(counter.revision) };
  }

  async insertDraft(m: EntityManager, draft: NewDraft): Promise<void> {
    await m.getRepository(RuleSetVersionEntity).insert({
      ...draft,
      status: 'Draft',
      document: draft.document as never,
    });
  }

  /** The superseded active version leaves service. */
  async archiveVersion(
    m: EntityManager,
    workflowName: string,
    version: number,
    status: RuleSetStatus,
    now: Date,
  ): Promise<void> {
    await m.query(
      `UPDATE rule_set_versions SET status = $3, archived_at = $4 WHERE workflow_name = $1 AND version = $2`,
      [workflowName, version, status, now],
    );
  }

  /** Marks a version active and makes it the workflow's active version; returns the new revision. */
  async activateVersion(
    m: EntityManager,
    workflowName: string,
    version: number,
    status: RuleSetStatus,
    now: Date,
    actor: string,
  ): Promise<number> {
    await m.query(
      `UPDATE rule_set_versions SET status = $3, activated_at = $4, activated_by = $5 WHERE workflow_name = $1 AND version = $2`,
      [workflowName, version, status, now, actor],
    );
    const [row] = returnedRows<{ revision: string }>(
      await m.query(
        `UPDATE rule_sets SET active_version = $2, revision = revision + 1, modified_at = $3, modified_by = $4
          WHERE workflow_name = $1 RETURNING revision`,
        [workflowName, version, now, actor],
      ),
    );
    return Number(row.revision);
  }

  /** Submitted for approval: a previous rejection is cleared. */
  async markSubmitted(
    m: EntityManager,
    workflowName: string,
    version: number,
    status: RuleSetStatus,
    actor: string,
    now: Date,
  ): Promise<void> {
    await m.query(
      `UPDATE rule_set_versions SET status = $3, submitted_by = $4, submitted_at = $5,
              rejected_by = NULL, rejected_at = NULL, rejection_reason = NULL
        WHERE workflow_name = $1 AND version = $2`,
      [workflowName, version, status, actor, now],
    );
  }

  async markApproved(
    m: EntityManager,
    workflowName: string,
    version: number,
    status: RuleSetStatus,
    actor: string,
    now: Date,
  ): Promise<void> {
    await m.query(
      `UPDATE rule_set_versions SET status = $3, approved_by = $4, approved_at = $5 WHERE workflow_name = $1 AND version = $2`,
      [workflowName, version, status, actor, now],
    );
  }

  async markRejected(
    m: EntityManager,
    workflowName: string,
    version: number,
    status: RuleSetStatus,
    actor: string,
    now: Date,
    reason: string,
  ): Promise<void> {
    await m.query(
      `UPDATE rule_set_versions SET status = $3, rejected_by = $4, rejected_at = $5, rejection_reason = $6
        WHERE workflow_name = $1 AND version = $2`,
      [workflowName, version, status, actor, now, reason],
    );
  }

  /** Records a change of the workflow (who, when) and raises its revision; returns the new revision. */
  async touch(m: EntityManager, workflowName: string, now: Date, actor: string): Promise<number> {
    const [row] = returnedRows<{ revision: string }>(
      await m.query(
        `UPDATE rule_sets SET revision = revision + 1, modified_at = $2, modified_by = $3 WHERE workflow_name = $1 RETURNING revision`,
        [workflowName, now, actor],
      ),
    );
    return Number(row.revision);
  }

  /**
   * Raises the revision of one workflow (recording who and when) or of every workflow of the unit of
   * work's tenant, so every node's cache drops them; empty when the workflow does not exist.
   */
  async bumpRevisions(
    m: EntityManager,
    workflowName: string | undefined,
    now: Date,
    actor: string,
  ): Promise<BumpedRevision[]> {
    return returnedRows<BumpedRevision>(
      workflowName
        ? await m.query(
            `UPDATE rule_sets SET revision = revision + 1, modified_at = $2, modified_by = $3 WHERE workflow_name = $1
             RETURNING workflow_name, revision, active_version`,
            [workflowName, now, actor],
          )
        : await m.query(
            `UPDATE rule_sets SET revision = revision + 1 RETURNING workflow_name, revision, active_version`,
          ),
    );
  }
}
