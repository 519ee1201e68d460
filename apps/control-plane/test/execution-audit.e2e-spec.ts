import { startService } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { controlPlaneService } from '../src';
import { RolloutArmCounts1732060000800 } from '../src/database/migrations/1732060000800-rollout-arm-counts';
import { BatchedExecutionAuditSink } from '../src/execution-audit/batched-execution-audit.sink';
import {
  ExecutionAuditQueries,
  ExecutionAuditSink,
  ExecutionRecord,
} from '../src/execution-audit/execution-record';
import { client } from './helpers';

const AUDIT = '/api/v1/audit/workflow';
const METRICS = '/api/v1/control-plane/execution-audit/metrics';
const DB_KEY = 'ConnectionStrings:RuleControlPlaneDb';
const onPostgres = !!process.env.TEST_DATABASE_URL?.trim();

let clock = Date.parse('2026-11-20T10:00:00.000Z');
function entry(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  clock += 1;
  return {
    executionId: randomUUID(),
    tenantId: 'acme',
    workflowName: 'loan',
    version: 3,
    correlationId: `corr-${clock}`,
    executedAt: new Date(clock).toISOString(),
    executionTimeMs: 1.25,
    rulesMatched: ['r1', 'r2'],
    status: 'success',
    errorCodes: [],
    arm: 'active',
    rolloutId: null,
    mode: 'Rules',
    shadowDiff: null,
    ...overrides,
  };
}

const sinkOf = (sut: { service: { app: { get(t: unknown): unknown } } }) =>
  sut.service.app.get(ExecutionAuditSink) as BatchedExecutionAuditSink;

async function recordAll(sink: ExecutionAuditSink, entries: ExecutionRecord[]): Promise<number> {
  let waited = 0;
  const pending: Promise<void>[] = [];
  for (const e of entries) {
    const result = sink.record(e);
    if (result) {
      waited++;
      pending.push(result);
    }
  }
  await Promise.all(pending);
  return waited;
}

/** Every execution id in the table (as the owner: row-level security does not apply). */
async function storedIds(databaseUrl: string): Promise<string[]> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const rows = await db.query('SELECT execution_id FROM execution_audit');
    return rows.rows.map((r) => r.execution_id);
  } finally {
    await db.end();
  }
}

describe('execution audit (batched sink, GET /api/v1/audit/workflow/{workflowName})', () => {
  let sut: ServiceUnderTest;
  let spillDir: string;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    spillDir = mkdtempSync(join(tmpdir(), 'exec-audit-'));
    sut = await startServiceForTest(controlPlaneService, DB_KEY, {
      overrides: { 'ExecutionAudit:SpillDirectory': spillDir, 'ExecutionAudit:BatchSize': 100 },
    });
    api = client(sut.url, { 'x-tenant-id': 'acme' });
  });
  afterAll(async () => {
    await sut?.stop();
    rmSync(spillDir, { recursive: true, force: true });
  });

  it('records entries without waiting and reads them back newest first with every field', async () => {
    const diff = {
      candidateVersion: 4,
      severity: 'high' as const,
      differences: [
        { field: 'approved', activeValue: true, candidateValue: false, severity: 'high' as const },
      ],
    };
    const entries = Array.from({ length: 250 }, (_, i) =>
      entry(i === 249 ? { shadowDiff: diff, mode: 'Shadow', status: 'error', errorCodes: ['E1'] } : {}),
    );
    const sink = sinkOf(sut);
    expect(await recordAll(sink, entries)).toBe(0); // all accepted synchronously
    await sink.flush();

    const res = await api.get(`${AUDIT}/loan?pageSize=500`);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(250);
    expect(res.body.nextBefore).toBeNull();
    expect(res.body.items.map((i: any) => i.executionId)).toEqual(
      [...entries].reverse().map((e) => e.executionId),
    );
    const newest = entries[249];
    expect(res.body.items[0]).toEqual({
      executionId: newest.executionId,
      workflowName: 'loan',
      version: 3,
      correlationId: newest.correlationId,
      tenantId: 'acme',
      executedAt: newest.executedAt,
      executionTimeMs: 1.25,
      rulesMatched: ['r1', 'r2'],
      status: 'error',
      errorCodes: ['E1'],
      arm: 'active',
      rolloutId: null,
      mode: 'Shadow',
      shadowDiff: diff,
    });
    expect(res.body.items[1]).not.toHaveProperty('shadowDiff');
  });

  it('pages with pageSize (default 20) and the before cursor', async () => {
    const first = await api.get(`${AUDIT}/loan`);
    expect(first.body.items).toHaveLength(20);
    const second = await api.get(`${AUDIT}/loan?pageSize=20&before=${first.body.nextBefore}`);
    expect(second.body.items).toHaveLength(20);
    const all = await api.get(`${AUDIT}/loan?pageSize=40`);
    expect([...first.body.items, ...second.body.items]).toEqual(all.body.items);
  });

  it('is visible to the reader right after record() (reads wait for the buffer)', async () => {
    const e = entry({ workflowName: 'fresh' });
    sinkOf(sut).record(e);
    const res = await api.get(`${AUDIT}/fresh`);
    expect(res.body.items.map((i: any) => i.executionId)).toEqual([e.executionId]);
  });

  it('isolates tenants', async () => {
    const other = entry({ tenantId: 'globex', workflowName: 'loan' });
    sinkOf(sut).record(other);
    await sinkOf(sut).flush();
    const globex = await client(sut.url, { 'x-tenant-id': 'globex' }).get(`${AUDIT}/loan`);
    expect(globex.body.items.map((i: any) => i.executionId)).toEqual([other.executionId]);
    const acme = await api.get(`${AUDIT}/loan?pageSize=500`);
    expect(acme.body.items.map((i: any) => i.tenantId)).not.toContain('globex');
    // tenant "default" has neither executions nor a rule set named loan: an unknown workflow (issue 27 item 14)
    const unknown = await client(sut.url).get(`${AUDIT}/loan`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'RULESET_NOT_FOUND']);
  });

  it('answers 404 for an unknown workflow and an empty list for a saved one never executed (issue 27 item 14)', async () => {
    const unknown = await api.get(`${AUDIT}/never-saved`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'RULESET_NOT_FOUND']);
    const saved = await api.post('/api/v1/rule-engine/rulesets/saved-only/save', {
      rules: [{ id: 'r1', name: 'R1', condition: 'true', output: { ok: true } }],
    });
    expect(saved.status).toBe(200);
    const empty = await api.get(`${AUDIT}/saved-only`);
    expect([empty.status, empty.body.items]).toEqual([200, []]);
  });

  it('refuses bad pageSize, cursor and workflow name with 400', async () => {
    for (const q of ['pageSize=0', 'pageSize=501', 'pageSize=abc', 'pageSize=-1']) {
      const res = await api.get(`${AUDIT}/loan?${q}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'pageSize' }] });
    }
    const cursor = await api.get(`${AUDIT}/loan?before=nonsense`);
    expect(cursor.status).toBe(400);
    expect(cursor.body.code).toBe('INVALID_CURSOR');
    // well-formed, but its execution id is no UUID (the key column is a uuid): refused, not a 500
    const forged = Buffer.from(JSON.stringify(['2026-11-20T10:00:00.000Z', 'e-1'])).toString('base64url');
    const notAnId = await api.get(`${AUDIT}/loan?before=${forged}`);
    expect(notAnId.status).toBe(400);
    expect(notAnId.body.code).toBe('INVALID_CURSOR');
    const name = await api.get(`${AUDIT}/${encodeURIComponent('bad name!')}`);
    expect(name.status).toBe(400);
    expect(name.body.code).toBe('INVALID_WORKFLOW_NAME');
  });

  it('refuses a malformed record at once (a bug of the caller, not a silent loss)', () => {
    expect(() => sinkOf(sut).record({ ...entry(), tenantId: '' })).toThrow(TypeError);
    expect(() => sinkOf(sut).record({ ...entry(), executedAt: 'yesterday' })).toThrow(TypeError);
    expect(() => sinkOf(sut).record({ ...entry(), executionId: 'e-1' })).toThrow(TypeError);
    expect(() => sinkOf(sut).record({ ...entry(), version: 2.5 })).toThrow(TypeError);
  });

  it('counts executions and errors per arm and version of a rollout, of every tenant it served (ExecutionAuditQueries)', async () => {
    const rolloutId = randomUUID();
    const sink = sinkOf(sut);
    const arm = (a: 'active' | 'canary', version: number, status: 'success' | 'error') =>
      entry({ workflowName: 'canaried', arm: a, version, status, rolloutId });
    await recordAll(sink, [
      arm('active', 1, 'success'),
      arm('active', 1, 'success'),
      arm('active', 1, 'error'),
      arm('canary', 2, 'error'),
      entry({ workflowName: 'canaried', rolloutId: randomUUID() }), // another rollout
      // a tenant the rollout's (shared) rule set served: its executions are stored under its own tenant
      entry({ workflowName: 'canaried', tenantId: 'globex', rolloutId, arm: 'canary', version: 2 }),
      entry({ workflowName: 'other-workflow', tenantId: 'globex', rolloutId, arm: 'canary', version: 2 }),
    ]);
    const queries = sut.service.app.get(ExecutionAuditQueries);
    const { RequestContext } = await import('@arbiter/platform');
    const stats = await RequestContext.run({ tenantId: 'acme' }, () =>
      queries.armStatistics('canaried', rolloutId),
    );
    expect(stats).toEqual([
      { arm: 'active', version: 1, executions: 3, errors: 1, errorRate: 1 / 3 },
      { arm: 'canary', version: 2, executions: 2, errors: 1, errorRate: 0.5 },
    ]);
  });

  it('stores an entry once however often it is recorded, and counts it once in its rollout', async () => {
    const rolloutId = randomUUID();
    const e = entry({ workflowName: 'twice', rolloutId, arm: 'canary', status: 'error' });
    const sink = sinkOf(sut);
    sink.record(e);
    await sink.flush();
    const before = (await api.get(METRICS)).body.duplicates;
    // again, in a batch with a new entry: the batch is written again skipping the stored one
    await recordAll(sink, [e, entry({ workflowName: 'twice', rolloutId, arm: 'canary' })]);
    await sink.flush();
    expect((await api.get(`${AUDIT}/twice`)).body.items).toHaveLength(2);
    expect((await api.get(METRICS)).body.duplicates).toBe(before + 1);
    const { RequestContext } = await import('@arbiter/platform');
    const stats = await RequestContext.run({ tenantId: 'acme' }, () =>
      sut.service.app.get(ExecutionAuditQueries).armStatistics('twice', rolloutId),
    );
    expect(stats).toEqual([{ arm: 'canary', version: 3, executions: 2, errors: 1, errorRate: 0.5 }]);
  });

  it('stores text with U+0000 (refused by jsonb) as U+FFFD, and keeps a literal backslash-u0000 as it is', async () => {
    const nul = entry({
      workflowName: 'nul',
      correlationId: 'a\u0000b',
      rulesMatched: ['r\u0000', 'lit\\u0000'],
    });
    const sink = sinkOf(sut);
    sink.record(nul);
    await sink.flush();
    const [item] = (await api.get(`${AUDIT}/nul`)).body.items;
    expect(item.correlationId).toBe('a\ufffdb');
    expect(item.rulesMatched).toEqual(['r\ufffd', 'lit\\u0000']);
  });

  it('keeps an entry the database refuses out of the batch (the rest is written, the entry is kept in .rejected)', async () => {
    // A constraint the entry breaks: the database refuses it (the app's own connection owns the table).
    const owner = sut.service.app.get(DataSource);
    const constraint = (sql: string) => owner.transaction((m) => m.query(sql));
    await constraint(
      `ALTER TABLE execution_audit ADD CONSTRAINT test_no_poison CHECK (correlation_id <> 'poison') NOT VALID`,
    );
    const good = entry({ workflowName: 'poison' });
    const bad = entry({ workflowName: 'poison', correlationId: 'poison' });
    const sink = sinkOf(sut);
    try {
      await recordAll(sink, [good, bad]);
      await sink.flush();
    } finally {
      await constraint('ALTER TABLE execution_audit DROP CONSTRAINT test_no_poison');
    }
    const items = (await api.get(`${AUDIT}/poison`)).body.items;
    expect(items.map((i: any) => i.executionId)).toEqual([good.executionId]);
    const rejected = readdirSync(spillDir).filter((f) => f.endsWith('.rejected'));
    expect(rejected).toHaveLength(1);
    expect(readFileSync(join(spillDir, rejected[0]), 'utf8')).toContain(bad.executionId);
    expect((await api.get(METRICS)).body.rejected).toBe(1);
  });

  it('exposes its counters and buffer gauges', async () => {
    const res = await api.get(METRICS);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      buffered: expect.any(Number),
      written: expect.any(Number),
      spilled: 0,
      replayed: 0,
      failedBatches: 0,
      bufferSize: 0,
      waiting: 0,
      bufferCapacity: 50_000,
      consecutiveFailures: 0,
    });
    expect(res.body.written + res.body.duplicates + res.body.rejected).toBe(res.body.buffered);
  });
});

describe('execution audit back-pressure (tiny buffer)', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, DB_KEY, {
      overrides: { 'ExecutionAudit:BufferSize': 5, 'ExecutionAudit:BatchSize': 2 },
    });
  });
  afterAll(() => sut?.stop());

  it('makes callers wait for room instead of dropping, and keeps their order', async () => {
    const entries = Array.from({ length: 60 }, () => entry({ workflowName: 'pressure' }));
    const sink = sinkOf(sut);
    const waited = await recordAll(sink, entries);
    expect(waited).toBe(55); // 5 fit, the rest waited for the writer
    await sink.flush();
    const res = await client(sut.url, { 'x-tenant-id': 'acme' }).get(
      `${'/api/v1/audit/workflow'}/pressure?pageSize=100`,
    );
    expect(res.body.items.map((i: any) => i.executionId)).toEqual(
      [...entries].reverse().map((e) => e.executionId),
    );
  });
});

/** Starts the control plane on an existing database (as a second instance or after a restart). */
function startOn(databaseUrl: string, overrides: Record<string, string | number | boolean>) {
  return startService(controlPlaneService, {
    environment: 'Testing',
    env: {},
    port: 0,
    host: '127.0.0.1',
    overrides: {
      [DB_KEY]: databaseUrl,
      'ConnectionStrings:Cache': process.env.TEST_NATS_URL?.trim() ?? '',
      ...overrides,
    },
  });
}

describe('execution audit across restarts (shutdown flush, spill replay)', () => {
  let dataDir: string;
  let spillDir: string;
  let databaseUrl: string;
  let dropDatabase: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'exec-audit-db-'));
    spillDir = mkdtempSync(join(tmpdir(), 'exec-audit-spill-'));
    if (onPostgres) {
      const { createTestDatabase } = await import('@arbiter/testing');
      const db = await createTestDatabase();
      databaseUrl = db.url;
      dropDatabase = db.drop;
    } else {
      databaseUrl = `pglite://${dataDir}`;
    }
  });
  afterAll(async () => {
    await dropDatabase();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(spillDir, { recursive: true, force: true });
  });

  const count = async (url: string, workflow: string) => {
    const res = await client(url, { 'x-tenant-id': 'acme' }).get(`${AUDIT}/${workflow}?pageSize=500`);
    return res.body.items.map((i: any) => i.executionId) as string[];
  };

  it('writes every buffered entry on shutdown (a long flush interval would otherwise keep them in memory)', async () => {
    const first = await startOn(databaseUrl, {
      'ExecutionAudit:FlushIntervalMs': 60_000,
      'ExecutionAudit:SpillDirectory': spillDir,
    });
    const entries = Array.from({ length: 300 }, () => entry({ workflowName: 'shutdown' }));
    await recordAll(first.app.get(ExecutionAuditSink), entries);
    expect((await client(first.url).get(METRICS)).body.bufferSize).toBe(300);
    await first.close();

    const second = await startOn(databaseUrl, { 'ExecutionAudit:SpillDirectory': spillDir });
    try {
      expect((await count(second.url, 'shutdown')).sort()).toEqual(entries.map((e) => e.executionId).sort());
    } finally {
      await second.close();
    }
    expect(readdirSync(spillDir).filter((f) => !f.endsWith('.rejected'))).toEqual([]);
  });

  it('fills the rollout counters from the entries stored before they existed (migration 1732060000800)', async () => {
    const rolloutId = randomUUID();
    const app = await startOn(databaseUrl, {});
    try {
      const sink = app.app.get(ExecutionAuditSink) as BatchedExecutionAuditSink;
      await recordAll(sink, [
        entry({ workflowName: 'before-counters', rolloutId }),
        entry({ workflowName: 'before-counters', rolloutId, status: 'error' }),
        entry({ workflowName: 'before-counters', rolloutId, arm: 'canary', version: 4 }),
        entry({ workflowName: 'before-counters', tenantId: 'globex', rolloutId, arm: 'canary', version: 4 }),
      ]);
      await sink.flush();
      // back to the schema before the migration (entries stored, no counters), then the migration again
      const runner = app.app.get(DataSource).createQueryRunner();
      const migration = new RolloutArmCounts1732060000800();
      try {
        await runner.startTransaction();
        await migration.down(runner);
        await migration.up(runner);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
      const { RequestContext } = await import('@arbiter/platform');
      const stats = await RequestContext.run({ tenantId: 'acme' }, () =>
        app.app.get(ExecutionAuditQueries).armStatistics('before-counters', rolloutId),
      );
      expect(stats).toEqual([
        { arm: 'active', version: 3, executions: 2, errors: 1, errorRate: 0.5 },
        { arm: 'canary', version: 4, executions: 2, errors: 0, errorRate: 0 },
      ]);
      // and the entries still read back newest first through the new key
      expect(await count(app.url, 'before-counters')).toHaveLength(3);
    } finally {
      await app.close();
    }
  });

  it('replays spill files found at startup (once, skipping entries already stored, keeping unreadable lines)', async () => {
    const stored = entry({ workflowName: 'replay', rolloutId: randomUUID() });
    const boot = await startOn(databaseUrl, { 'ExecutionAudit:SpillDirectory': spillDir });
    boot.app.get(ExecutionAuditSink).record(stored);
    await boot.close();

    const spilled = Array.from({ length: 5 }, () =>
      entry({ workflowName: 'replay', rolloutId: stored.rolloutId }),
    );
    const lines = [...spilled, stored].map((e) => JSON.stringify(e));
    writeFileSync(join(spillDir, 'other-instance-0.ndjson'), `${lines.join('\n')}\n{"truncated`);
    const next = await startOn(databaseUrl, { 'ExecutionAudit:SpillDirectory': spillDir });
    try {
      await (next.app.get(ExecutionAuditSink) as BatchedExecutionAuditSink).flush();
      expect((await count(next.url, 'replay')).sort()).toEqual(
        [...spilled, stored].map((e) => e.executionId).sort(),
      );
      const metrics = (await client(next.url).get(METRICS)).body;
      expect(metrics).toMatchObject({ replayed: 5, duplicates: 1, rejected: 1 });
      // the rollout counts the stored entry once and the replayed ones once each
      const { RequestContext } = await import('@arbiter/platform');
      const stats = await RequestContext.run({ tenantId: 'acme' }, () =>
        next.app.get(ExecutionAuditQueries).armStatistics('replay', stored.rolloutId!),
      );
      expect(stats).toEqual([{ arm: 'active', version: 3, executions: 6, errors: 0, errorRate: 0 }]);
      const left = readdirSync(spillDir);
      expect(left.filter((f) => f.includes('.ndjson'))).toEqual([]);
      const rejected = left.filter((f) => f.endsWith('.rejected'));
      expect(rejected.map((f) => readFileSync(join(spillDir, f), 'utf8')).join('')).toContain('{"truncated');
    } finally {
      await next.close();
    }
  });
});

/**
 * A real database outage: the suite's own database refuses connections for a few seconds (the server
 * keeps running for everyone else) while entries keep coming.
 */
(onPostgres ? describe : describe.skip)('execution audit during a database outage (PostgreSQL)', () => {
  let databaseUrl: string;
  let dbName: string;
  let dropDatabase: () => Promise<void> = async () => undefined;
  let spillDir: string;

  const admin = async (sql: string, params: unknown[] = []) => {
    const url = new URL(process.env.TEST_DATABASE_URL!.trim());
    url.pathname = '/postgres';
    const c = new Client({ connectionString: url.toString() });
    await c.connect();
    try {
      await c.query(sql, params);
    } finally {
      await c.end();
    }
  };
  const refuseConnections = async () => {
    await admin(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    await admin(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [dbName],
    );
  };
  const allowConnections = () => admin(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);

  beforeAll(async () => {
    const { createTestDatabase } = await import('@arbiter/testing');
    const db = await createTestDatabase();
    databaseUrl = db.url;
    dbName = new URL(db.url).pathname.slice(1);
    dropDatabase = db.drop;
    spillDir = mkdtempSync(join(tmpdir(), 'exec-audit-outage-'));
  });
  afterAll(async () => {
    await allowConnections().catch(() => undefined);
    await dropDatabase();
    rmSync(spillDir, { recursive: true, force: true });
  });

  /** Records 50 entries every 20 ms for `ms`; returns them and how many record() calls had to wait. */
  async function produceDuring(sink: ExecutionAuditSink, ms: number, workflowName: string) {
    const entries: ExecutionRecord[] = [];
    let waited = 0;
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const batch = Array.from({ length: 50 }, () => entry({ workflowName }));
      entries.push(...batch);
      waited += await recordAll(sink, batch);
      await new Promise((r) => setTimeout(r, 20));
    }
    return { entries, waited };
  }

  it.each([
    ['buffered and retried (back-pressure)', false],
    ['spilled to a file and replayed', true],
  ])('keeps every entry exactly once: %s', async (_label, spillWhenFull) => {
    const workflowName = spillWhenFull ? 'outage-spill' : 'outage-retry';
    const app = await startOn(databaseUrl, {
      'ExecutionAudit:SpillDirectory': spillDir,
      'ExecutionAudit:SpillWhenFull': spillWhenFull,
      'ExecutionAudit:BufferSize': 2_000,
      'ExecutionAudit:BatchSize': 200,
      'ExecutionAudit:MaxRetryDelayMs': 500,
    });
    try {
      const sink = app.app.get(ExecutionAuditSink) as BatchedExecutionAuditSink;
      const before = (await produceDuring(sink, 500, workflowName)).entries;
      await refuseConnections();
      // entries keep coming (with back-pressure the producer waits) while the database is away for 3 s
      const reopened = new Promise((r) => setTimeout(r, 3_000)).then(allowConnections);
      const outage = await produceDuring(sink, 3_000, workflowName);
      await reopened;
      const after = (await produceDuring(sink, 500, workflowName)).entries;
      await sink.flush();

      // without spilling, the full buffer made the producer wait (back-pressure); with it, nobody waited long
      if (!spillWhenFull) expect(outage.waited).toBeGreaterThan(0);
      const expected = [...before, ...outage.entries, ...after].map((e) => e.executionId);
      const wanted = new Set(expected);
      const stored = (await storedIds(databaseUrl)).filter((id) => wanted.has(id));
      expect(stored.length).toBe(expected.length);
      expect(new Set(stored).size).toBe(expected.length);
      const metrics = sink.snapshot();
      expect(metrics.failedBatches).toBeGreaterThan(0);
      if (spillWhenFull) expect(metrics.spilled).toBeGreaterThan(0);
      expect(metrics.written + metrics.replayed).toBeGreaterThanOrEqual(expected.length);
    } finally {
      await allowConnections();
      await app.close();
    }
  });

  it('spills the buffer when it stops with the database down, and replays it on the next start', async () => {
    const first = await startOn(databaseUrl, {
      'ExecutionAudit:SpillDirectory': spillDir,
      'ExecutionAudit:ShutdownFlushMs': 1_000,
      'ExecutionAudit:FlushIntervalMs': 60_000,
    });
    const entries = Array.from({ length: 100 }, () => entry({ workflowName: 'outage-stop' }));
    await recordAll(first.app.get(ExecutionAuditSink), entries);
    await refuseConnections();
    await first.close();
    expect(readdirSync(spillDir).some((f) => f.endsWith('.ndjson'))).toBe(true);
    await allowConnections();

    const second = await startOn(databaseUrl, { 'ExecutionAudit:SpillDirectory': spillDir });
    try {
      await (second.app.get(ExecutionAuditSink) as BatchedExecutionAuditSink).flush();
      const ids = entries.map((e) => e.executionId);
      const stored = (await storedIds(databaseUrl)).filter((id) => ids.includes(id));
      expect(stored.sort()).toEqual([...ids].sort());
    } finally {
      await second.close();
    }
  });
});
