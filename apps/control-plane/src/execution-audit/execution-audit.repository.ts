import { UnitOfWork } from '@arbiter/platform';
import { Injectable } from '@nestjs/common';
import type { ArmStatistics, ExecutionArm, ExecutionRecord, ShadowDiffRecord } from './execution-record';

/** One page position: entries strictly older than (executedAt, executionId), newest first. */
export interface AuditCursor {
  executedAt: string;
  executionId: string;
}

const COLUMNS = `execution_id, tenant_id, workflow_name, version, correlation_id, executed_at, execution_time_ms,
  rules_matched, status, error_codes, arm, rollout_id, mode, shadow_diff`;

/** One statement per tenant and batch: the rows travel as one jsonb parameter (no parameter limit). */
const INSERT_BATCH = `
  WITH inserted AS (
    INSERT INTO execution_audit (${COLUMNS})
    SELECT ${COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS r(
      execution_id text, tenant_id text, workflow_name text, version int, correlation_id text,
      executed_at timestamptz, execution_time_ms double precision, rules_matched jsonb, status text,
      error_codes text[], arm text, rollout_id text, mode text, shadow_diff jsonb)
    ON CONFLICT (execution_id) DO NOTHING
    RETURNING 1)
  SELECT count(*)::int AS count FROM inserted`;

/**
 * PostgreSQL refuses U+0000 in jsonb text: every `\u0000` escape that JSON.stringify wrote (one preceded by
 * an even number of backslashes, so not a literal backslash followed by "u0000") becomes U+FFFD, so one
 * odd value cannot block a batch. Done on the finished text: a replacer callback per value costs more.
 */
const NUL_ESCAPE = /(?<!\\)((?:\\\\)*)\\u0000/g;

function rowsJson(entries: ExecutionRecord[]): string {
  const rows = entries.map((e) => ({
    execution_id: e.executionId,
    tenant_id: e.tenantId,
    workflow_name: e.workflowName,
    version: e.version,
    correlation_id: e.correlationId,
    executed_at: e.executedAt,
    execution_time_ms: e.executionTimeMs,
    rules_matched: e.rulesMatched,
    status: e.status,
    error_codes: e.errorCodes,
    arm: e.arm,
    rollout_id: e.rolloutId,
    mode: e.mode,
    shadow_diff: e.shadowDiff,
  }));
  const json = JSON.stringify(rows);
  return json.includes('\\u0000') ? json.replace(NUL_ESCAPE, '$1\\ufffd') : json;
}

function groupByTenant(entries: ExecutionRecord[]): Map<string, ExecutionRecord[]> {
  const groups = new Map<string, ExecutionRecord[]>();
  for (const entry of entries) {
    const group = groups.get(entry.tenantId);
    if (group) group.push(entry);
    else groups.set(entry.tenantId, [entry]);
  }
  return groups;
}

interface AuditRow {
  execution_id: string;
  tenant_id: string;
  workflow_name: string;
  version: number | null;
  correlation_id: string;
  executed_at: Date;
  execution_time_ms: number;
  rules_matched: string[];
  status: ExecutionRecord['status'];
  error_codes: string[];
  arm: ExecutionArm;
  rollout_id: string | null;
  mode: ExecutionRecord['mode'];
  shadow_diff: ShadowDiffRecord | null;
}

const toRecord = (r: AuditRow): ExecutionRecord => ({
  executionId: r.execution_id,
  tenantId: r.tenant_id,
  workflowName: r.workflow_name,
  version: r.version,
  correlationId: r.correlation_id,
  executedAt: new Date(r.executed_at).toISOString(),
  executionTimeMs: Number(r.execution_time_ms),
  rulesMatched: r.rules_matched,
  status: r.status,
  errorCodes: r.error_codes,
  arm: r.arm,
  rolloutId: r.rollout_id,
  mode: r.mode,
  shadowDiff: r.shadow_diff,
});

/** The `execution_audit` table. Every statement runs in a unit of work (role + tenant, so RLS applies). */
@Injectable()
export class ExecutionAuditRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /**
   * Inserts a batch in one transaction: one multi-row INSERT per tenant of the batch, each after
   * setting that tenant (transaction-locally) so the row-level security check holds. Entries already
   * stored are skipped. Returns how many rows were new.
   */
  async insert(entries: ExecutionRecord[]): Promise<number> {
    if (entries.length === 0) return 0;
    const groups = groupByTenant(entries);
    const first = entries[0].tenantId;
    return this.uow.run(
      async (m) => {
        let inserted = 0;
        for (const [tenantId, rows] of groups) {
          // the unit of work opened with the first entry's tenant
          if (tenantId !== first) await m.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
          const [result] = await m.query(INSERT_BATCH, [rowsJson(rows)]);
          inserted += Number(result.count);
        }
        return inserted;
      },
      { tenantId: entries[0].tenantId },
    );
  }

  /** The current tenant's entries of a workflow, newest first. */
  async page(workflowName: string, limit: number, before?: AuditCursor): Promise<ExecutionRecord[]> {
    const params: unknown[] = [workflowName, limit];
    let older = '';
    if (before) {
      params.push(before.executedAt, before.executionId);
      older = 'AND (executed_at, execution_id) < ($3::timestamptz, $4)';
    }
    const rows: AuditRow[] = await this.uow.run((m) =>
      m.query(
        `SELECT ${COLUMNS} FROM execution_audit
          WHERE workflow_name = $1 ${older}
          ORDER BY executed_at DESC, execution_id DESC
          LIMIT $2`,
        params,
      ),
    );
    return rows.map(toRecord);
  }

  /**
   * Executions and errors per arm and version of a rollout, of every tenant its rule set serves (a
   * shared `default` rollout runs for other tenants, whose rows carry their own tenant id). Callers
   * resolve the rollout as its owner first; only counts leave this query.
   */
  async armStatistics(workflowName: string, rolloutId: string): Promise<ArmStatistics[]> {
    const rows: { arm: ExecutionArm; version: number | null; executions: number; errors: number }[] =
      await this.uow.run(
        (m) =>
          m.query(
            `SELECT arm, version, count(*)::int AS executions,
                  count(*) FILTER (WHERE status = 'error')::int AS errors
             FROM execution_audit
            WHERE workflow_name = $1 AND rollout_id = $2
            GROUP BY arm, version
            ORDER BY arm, version`,
            [workflowName, rolloutId],
          ),
        { acrossTenants: true },
      );
    return rows.map((r) => ({
      arm: r.arm,
      version: r.version,
      executions: r.executions,
      errors: r.errors,
      errorRate: r.executions ? r.errors / r.executions : 0,
    }));
  }
}
