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

/**
 * A batch travels as one jsonb parameter (no parameter limit): the rows' JSON texts (see
 * `encodeAuditEntry`), and the tenant as a parameter of its own.
 */
const BATCH_ROWS = `
  SELECT b.i, $2, b.w, b.v, b.c, b.t, b.d, b.m, b.s, coalesce(b.e, '{}'), b.a, b.r, b.o, b.x
    FROM jsonb_to_recordset($1::jsonb) AS b(
      i uuid, w text, v int, c text, t timestamptz, d double precision, m jsonb, s text, e text[], a text,
      r text, o text, x jsonb)`;

/** A batch never tried before: ids are new (UUID version 7), so a plain INSERT, the cheapest statement. */
const INSERT_BATCH = `INSERT INTO execution_audit (${COLUMNS}) ${BATCH_ROWS}`;
/** A batch that may be stored already, whole or in part (a retry, a spill file): stored entries are skipped. */
const INSERT_BATCH_SKIPPING_STORED = `${INSERT_BATCH} ON CONFLICT (execution_id) DO NOTHING`;

/** SQLSTATE of a unique violation. */
const UNIQUE_VIOLATION = '23505';

/**
 * An execution audit entry as it is buffered, spilled to a file and sent to the database: its tenant and
 * its row as JSON text with one-letter keys (`n` tenant, `i` execution id, `w` workflow, `v` version, `c`
 * correlation id, `t` executed at, `d` duration, `m` rules matched, `s` status, `e` error codes, `a` arm,
 * `r` rollout id, `o` mode, `x` shadow diff; a null or empty value is left out, and jsonb_to_recordset
 * reads a missing key as NULL). Encoded once, when recorded: a buffered entry is then two strings, which
 * the garbage collector moves without tracing, and the record's objects die young; a smaller document is
 * also less for PostgreSQL to parse.
 */
export interface EncodedAuditEntry {
  readonly tenantId: string;
  readonly row: string;
}

/**
 * What jsonb refuses and JSON.stringify writes: U+0000 (`\u0000`) and a lone surrogate (`\ud800`–`\udfff`;
 * a proper pair is written as the character itself, never escaped). Every such escape (one preceded by an
 * even number of backslashes, so not a literal backslash followed by "u0000") becomes U+FFFD, so one odd
 * value (a node id, a shadow diff's value from the facts) cannot block a batch. Done on the finished text of
 * a value JSON.stringify wrote: a replacer callback per value costs more.
 */
const REFUSED_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;
const mayHoldRefusedEscape = (json: string) => json.includes('\\u0000') || json.includes('\\ud');
const acceptedByJsonb = (json: string) =>
  mayHoldRefusedEscape(json) ? json.replace(REFUSED_ESCAPE, '$1\\ufffd') : json;

/**
 * A string JSON writes as it is between quotes: no quote, backslash, control character or surrogate (a
 * surrogate pair is safe too, but rare enough to take the slow path). Almost every audit string is one
 * (ids, ISO instants, enum values, node ids); testing is ten times cheaper than `JSON.stringify`.
 */
// eslint-disable-next-line no-control-regex -- control characters are what the class excludes
const WRITTEN_AS_IS = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A string as JSON text that jsonb accepts. */
function jsonString(value: string): string {
  return WRITTEN_AS_IS.test(value) ? '"' + value + '"' : acceptedByJsonb(JSON.stringify(value));
}

function jsonStrings(values: readonly string[]): string {
  if (values.length === 0) return '[]';
  let text = '[' + jsonString(values[0]);
  for (let i = 1; i < values.length; i++) text += ',' + jsonString(values[i]);
  return text + ']';
}

/** A number as JSON.stringify writes it (a finite one as `String` does; anything else as null). */
const jsonNumber = (value: number) => (Number.isFinite(value) ? String(value) : 'null');

/**
 * Written out key by key rather than by `JSON.stringify` of an object: no object is built, and a string that
 * needs no escape (nearly all of them) is put between quotes as it is. Any other string goes through
 * `JSON.stringify` (so what a caller chose — workflow, correlation id, node names — is escaped) and then has
 * what jsonb refuses replaced; so has the shadow diff.
 */
export function encodeAuditEntry(e: ExecutionRecord): EncodedAuditEntry {
  let row =
    '{"n":' +
    jsonString(e.tenantId) +
    ',"i":' +
    jsonString(e.executionId) +
    ',"w":' +
    jsonString(e.workflowName);
  if (e.version !== null && e.version !== undefined) row += ',"v":' + jsonNumber(e.version);
  row +=
    ',"c":' +
    jsonString(e.correlationId) +
    ',"t":' +
    jsonString(e.executedAt) +
    ',"d":' +
    jsonNumber(e.executionTimeMs) +
    ',"m":' +
    jsonStrings(e.rulesMatched) +
    ',"s":' +
    jsonString(e.status);
  if (e.errorCodes.length) row += ',"e":' + jsonStrings(e.errorCodes);
  row += ',"a":' + jsonString(e.arm);
  if (e.rolloutId !== null && e.rolloutId !== undefined) row += ',"r":' + jsonString(e.rolloutId);
  row += ',"o":' + jsonString(e.mode);
  if (e.shadowDiff !== null && e.shadowDiff !== undefined)
    row += ',"x":' + acceptedByJsonb(JSON.stringify(e.shadowDiff));
  row += '}';
  flatten(row);
  return { tenantId: e.tenantId, row };
}

/**
 * Makes V8 copy a string built by concatenation (a tree of some forty pieces) into one sequential string,
 * now: reading a character does it. A buffered row lives until its batch is written, long enough to be
 * copied by the young-generation collector and often promoted; one string is far cheaper to move than a
 * tree of them (measured: about 4 µs less collection per row), and the batch's join copies it as it is.
 */
function flatten(text: string): void {
  text.charCodeAt(0);
}

/**
 * A line of a spill file back as an entry: the encoded row, or a whole `ExecutionRecord` (the spill format
 * before rows were encoded when recorded). Undefined when the line is neither.
 */
export function decodeSpilledEntry(line: string): EncodedAuditEntry | undefined {
  const value = JSON.parse(line) as Record<string, unknown> | null;
  if (typeof value?.n === 'string' && typeof value.i === 'string') return { tenantId: value.n, row: line };
  if (typeof value?.tenantId === 'string' && typeof value.executionId === 'string')
    return encodeAuditEntry(value as unknown as ExecutionRecord);
  return undefined;
}

/** The execution id of an encoded entry (for log lines; not a hot path). */
export function executionIdOf(entry: EncodedAuditEntry): string {
  return (JSON.parse(entry.row) as { i: string }).i;
}

const isUniqueViolation = (error: unknown) => {
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  return (e?.driverError?.code ?? e?.code) === UNIQUE_VIOLATION;
};

function groupByTenant(entries: EncodedAuditEntry[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const entry of entries) {
    const group = groups.get(entry.tenantId);
    if (group) group.push(entry.row);
    else groups.set(entry.tenantId, [entry.row]);
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
   * setting that tenant (transaction-locally) so the row-level security check holds. Returns how many
   * rows were new. `mayBeStored`: the batch may be in the table already (a retry after a failed write, a
   * spill file), so stored entries are skipped; otherwise a plain INSERT, and should an id be stored
   * after all (an entry recorded twice), the batch is written again skipping stored entries.
   */
  async insert(entries: EncodedAuditEntry[], mayBeStored = false): Promise<number> {
    if (entries.length === 0) return 0;
    const groups = groupByTenant(entries);
    const first = entries[0].tenantId;
    const statement = mayBeStored ? INSERT_BATCH_SKIPPING_STORED : INSERT_BATCH;
    try {
      return await this.uow.run(
        async (m) => {
          let inserted = 0;
          for (const [tenantId, rows] of groups) {
            // the unit of work opened with the first entry's tenant
            if (tenantId !== first) await m.query(`SELECT set_config('app.tenant_id', $1, true)`, [tenantId]);
            const result = await m.queryRunner!.query(statement, [`[${rows.join(',')}]`, tenantId], true);
            inserted += result.affected ?? 0;
          }
          return inserted;
        },
        { tenantId: first },
      );
    } catch (error) {
      if (mayBeStored || !isUniqueViolation(error)) throw error;
      return this.insert(entries, true);
    }
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
