import { UnitOfWork } from '@arbiter/platform';
import { Injectable } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { AUDIT_ROW_TYPE, auditRowArray, EncodedAuditEntry } from './audit-row';
import { tallyRolloutArms } from './rollout-arm-tally';
import type { ArmStatistics, ExecutionArm, ExecutionRecord, ShadowDiffRecord } from './execution-record';

/** One page position: entries strictly older than (executedAt, executionId), newest first. */
export interface AuditCursor {
  executedAt: string;
  executionId: string;
}

const COLUMNS = `execution_id, tenant_id, workflow_name, version, correlation_id, executed_at, execution_time_ms,
  rules_matched, status, error_codes, arm, rollout_id, mode, shadow_diff`;

/**
 * A batch travels as one binary array of `execution_audit_row` (see `audit-row.ts`): PostgreSQL reads each
 * value with its type's receive function. The tenant is a parameter of its own (the row's copy is the same).
 */
const BATCH_ROWS = `
  SELECT b.execution_id, $2, b.workflow_name, b.version, b.correlation_id, b.executed_at, b.execution_time_ms,
         b.rules_matched, b.status, b.error_codes, b.arm, b.rollout_id, b.mode, b.shadow_diff
    FROM unnest($1::${AUDIT_ROW_TYPE}[]) AS b`;

/** A batch never tried before: ids are new (UUID version 7), so a plain INSERT, the cheapest statement. */
const INSERT_BATCH = `INSERT INTO execution_audit (${COLUMNS}) ${BATCH_ROWS}`;

/** Adds to the rollout counters (`c`) in the statement's order (the same lock order in every writer). */
const ADD_TO_COUNTERS = `
  ON CONFLICT ON CONSTRAINT ux_rollout_arm_counts
  DO UPDATE SET executions = c.executions + excluded.executions, errors = c.errors + excluded.errors`;

/**
 * A batch never tried before with entries of a rollout: the counters its entries add to (counted here, see
 * `rollout-arm-tally.ts`, six arrays from $3) are added to by the same statement. Should an entry be stored
 * already, the statement fails whole and the batch is written again skipping stored entries.
 */
const INSERT_BATCH_COUNTING = `
  WITH counted AS (
    INSERT INTO rollout_arm_counts AS c (tenant_id, rollout_id, workflow_name, arm, version, executions, errors)
    SELECT $2, t.rollout_id, t.workflow_name, t.arm, t.version, t.executions, t.errors
      FROM unnest($3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::bigint[])
        AS t(rollout_id, workflow_name, arm, version, executions, errors)
     ORDER BY t.rollout_id, t.workflow_name, t.arm, t.version
    ${ADD_TO_COUNTERS}
  )
  ${INSERT_BATCH}`;

/**
 * A batch that may be stored already, whole or in part (a retry, a spill file): stored entries are skipped,
 * and only the entries stored now are counted (by the database, from what the INSERT returns).
 */
const INSERT_BATCH_SKIPPING_STORED = `
  WITH stored AS (
    ${INSERT_BATCH} ON CONFLICT ON CONSTRAINT execution_audit_pkey DO NOTHING
    RETURNING rollout_id, workflow_name, arm, version, status
  ), counted AS (
    INSERT INTO rollout_arm_counts AS c (tenant_id, rollout_id, workflow_name, arm, version, executions, errors)
    SELECT $2, rollout_id, workflow_name, arm, version, count(*), count(*) FILTER (WHERE status = 'error')
      FROM stored
     WHERE rollout_id IS NOT NULL
     GROUP BY rollout_id, workflow_name, arm, version
     ORDER BY rollout_id, workflow_name, arm, version
    ${ADD_TO_COUNTERS}
  )
  SELECT count(*)::int AS stored FROM stored`;

/** Size of the reusable batch parameter buffer (1,000 rows of about 330 bytes fit three times over). */
const BATCH_BUFFER_BYTES = 1024 * 1024;

/** SQLSTATE of a unique violation. */
const UNIQUE_VIOLATION = '23505';

const isUniqueViolation = (error: unknown) => {
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  return (e?.driverError?.code ?? e?.code) === UNIQUE_VIOLATION;
};

/** The entries per tenant, tenants in order (every writer locks the counters of several tenants in one order). */
function groupByTenant(entries: EncodedAuditEntry[]): [string, EncodedAuditEntry[]][] {
  if (entries.every((entry) => entry.tenantId === entries[0].tenantId))
    return [[entries[0].tenantId, entries]];
  const groups = new Map<string, EncodedAuditEntry[]>();
  for (const entry of entries) {
    const group = groups.get(entry.tenantId);
    if (group) group.push(entry);
    else groups.set(entry.tenantId, [entry]);
  }
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
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
  /**
   * The buffer batch parameters are written into, reused from batch to batch (null while a statement holds
   * it: a replay overlapping the writer gets one of its own). A buffer per batch made V8 count external
   * memory fast enough to run a full collection every second or so under load.
   */
  private spareBatchBuffer: Buffer | null = null;
  /** OID of `execution_audit_row` in this database (read once; forgotten after a failed batch, read again). */
  private rowTypeOid: number | null = null;

  constructor(private readonly uow: UnitOfWork) {}

  /**
   * Inserts a batch in one transaction: one multi-row INSERT per tenant of the batch (tenants in order),
   * each after setting that tenant (transaction-locally) so the row-level security check holds, and adding
   * its entries to the rollout counters in the same statement. Returns how many rows were new.
   * `mayBeStored`: the batch may be in the table already (a retry after a failed write, a spill file), so
   * stored entries are skipped (and not counted again); otherwise a plain INSERT, and should an entry be
   * stored after all (an entry recorded twice), the batch is written again skipping stored entries.
   */
  async insert(entries: EncodedAuditEntry[], mayBeStored = false): Promise<number> {
    if (entries.length === 0) return 0;
    const groups = groupByTenant(entries);
    const first = groups[0][0];
    try {
      return await this.uow.run(
        async (m) => {
          let inserted = 0;
          for (const [tenantId, group] of groups) {
            // the unit of work opened with the first entry's tenant
            if (tenantId !== first) await m.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
            this.rowTypeOid ??= await this.readRowTypeOid(m);
            const buffer = this.spareBatchBuffer ?? Buffer.allocUnsafeSlow(BATCH_BUFFER_BYTES);
            this.spareBatchBuffer = null;
            const parameter = auditRowArray(group, this.rowTypeOid, buffer);
            try {
              inserted += await this.write(m.queryRunner!, mayBeStored, parameter, tenantId, group);
            } finally {
              // the driver has copied the parameter by the time its statement settles; a larger one is kept
              this.spareBatchBuffer = parameter.buffer === buffer.buffer ? buffer : parameter;
            }
          }
          return inserted;
        },
        { tenantId: first },
      );
    } catch (error) {
      this.rowTypeOid = null; // a type dropped and made again by a migration has a new OID
      if (mayBeStored || !isUniqueViolation(error)) throw error;
      return this.insert(entries, true);
    }
  }

  /** Stores one tenant's entries and adds them to the rollout counters; returns how many were stored now. */
  private async write(
    runner: QueryRunner,
    mayBeStored: boolean,
    entries: Buffer,
    tenantId: string,
    group: EncodedAuditEntry[],
  ): Promise<number> {
    if (mayBeStored) {
      const [row] = await runner.query(INSERT_BATCH_SKIPPING_STORED, [entries, tenantId]);
      return row.stored;
    }
    const tally = tallyRolloutArms(group);
    const result = tally
      ? await runner.query(
          INSERT_BATCH_COUNTING,
          [
            entries,
            tenantId,
            tally.rolloutIds,
            tally.workflowNames,
            tally.arms,
            tally.versions,
            tally.executions,
            tally.errors,
          ],
          true,
        )
      : await runner.query(INSERT_BATCH, [entries, tenantId], true);
    return result.affected ?? 0;
  }

  private async readRowTypeOid(m: { query(sql: string): Promise<{ oid: number }[]> }): Promise<number> {
    const [row] = await m.query(`SELECT '${AUDIT_ROW_TYPE}'::regtype::oid::bigint AS oid`);
    return Number(row.oid);
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
   * shared `default` rollout runs for other tenants, whose counters carry their own tenant id), read from
   * the rollout counters the batches add to. Callers resolve the rollout as its owner first; only counts
   * leave this query.
   */
  async armStatistics(workflowName: string, rolloutId: string): Promise<ArmStatistics[]> {
    const rows: { arm: ExecutionArm; version: number | null; executions: string; errors: string }[] =
      await this.uow.run(
        (m) =>
          m.query(
            `SELECT arm, version, sum(executions)::bigint AS executions, sum(errors)::bigint AS errors
               FROM rollout_arm_counts
              WHERE workflow_name = $1 AND rollout_id = $2
              GROUP BY arm, version
              ORDER BY arm, version`,
            [workflowName, rolloutId],
          ),
        { acrossTenants: true },
      );
    return rows.map((r) => {
      const executions = Number(r.executions);
      const errors = Number(r.errors);
      return {
        arm: r.arm,
        version: r.version,
        executions,
        errors,
        errorRate: executions ? errors / executions : 0,
      };
    });
  }
}
