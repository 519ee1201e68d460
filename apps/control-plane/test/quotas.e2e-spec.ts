import {
  AppError,
  Database,
  EventBus,
  InProcessEventBus,
  RunningService,
  startService,
} from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { controlPlaneService } from '../src';
import { QuotaGate, QuotaLease } from '../src/quotas';
import { client, operatorAuthOverrides, operatorToken } from './helpers';

jest.setTimeout(180_000);

const Q = (tenant: string) => `/api/v1/tenants/${tenant}/quotas`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FREE = { maxConcurrentExecutions: 5, maxEvaluationsPerMinute: 600, maxEvaluationsPerDay: 50_000 };
const SYNC_MS = 150;

/** acquire → the lease, or the error it threw (synchronously or by rejection). */
async function attempt(gate: QuotaGate, tenant: string): Promise<QuotaLease | AppError> {
  try {
    return await gate.acquire(tenant);
  } catch (error) {
    return error as AppError;
  }
}
const isLease = (x: QuotaLease | AppError): x is QuotaLease => !(x instanceof Error);
const codes = (results: (QuotaLease | AppError)[]) => [
  ...new Set(results.filter((r): r is AppError => !isLease(r)).map((e) => `${e.status} ${e.code}`)),
];

/** Seconds until the next UTC midnight (the day window's reset). */
const secondsToMidnight = () => (86_400_000 - (Date.now() % 86_400_000)) / 1000;

/** Waits for a fresh minute when fewer than `margin` ms are left in this one (minute-window tests). */
async function awayFromMinuteEnd(margin = 8000) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < margin) await sleep(left + 50);
}

/**
 * Two replicas sharing one database: with TEST_DATABASE_URL both use the suite's PostgreSQL database
 * (and TEST_NATS_URL); on PGlite the second connects to the first's embedded server through its
 * socket, and both share one in-process bus.
 */
describe('tenant quotas: limits, tiers, usage and the gate across two replicas', () => {
  let a: ServiceUnderTest;
  let b: RunningService;
  let api: ReturnType<typeof client>;
  let gateA: QuotaGate;
  let gateB: QuotaGate;
  const shared: EventBus | undefined = process.env.TEST_NATS_URL
    ? undefined
    : new InProcessEventBus('/test/quotas');
  const held: QuotaLease[] = [];
  const quotaOverrides = {
    'Quotas:SyncIntervalMs': SYNC_MS,
    'Quotas:LeaseTtlMs': 1000,
  };

  beforeAll(async () => {
    a = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: quotaOverrides,
    });
    const socketDir = (a.service.app.get(Database).dataSource.options as { host?: string }).host;
    b = await startService(controlPlaneService, {
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      sharedBus: shared,
      overrides: {
        ...quotaOverrides,
        'ConnectionStrings:RuleControlPlaneDb':
          a.database.kind === 'postgres'
            ? a.database.url
            : `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir!)}`,
        'ConnectionStrings:Cache': process.env.TEST_NATS_URL ?? '',
        // Replica B's default tier comes from the runtime info tier (no Quotas:DefaultTier).
        'ControlPlaneRuntimeInfo:Tier': 'Enterprise',
      },
    });
    api = client(a.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    gateA = a.service.app.get(QuotaGate);
    gateB = b.app.get(QuotaGate);
  });
  afterAll(async () => {
    held.splice(0).forEach((l) => l.release());
    await b?.close();
    await a?.stop();
    await shared?.close();
  });

  const put = (tenant: string, body: unknown) =>
    api.call('PUT', `${Q(tenant)}/limits`, body, { 'x-tenant-id': tenant });

  describe('limits and tiers', () => {
    it('gives a tenant without a record the default tier preset (Quotas:DefaultTier, else the runtime tier)', async () => {
      const res = await api.get(`${Q('acme')}/limits`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        tenantId: 'acme',
        tier: 'Free',
        ...FREE,
        preset: FREE,
        overrides: {},
        updatedAt: null,
        updatedBy: null,
      });
      const onB = await client(b.url, { 'x-tenant-id': 'fresh' }).get(`${Q('fresh')}/limits`);
      expect(onB.body).toMatchObject({
        tier: 'Enterprise',
        maxConcurrentExecutions: 500,
        maxEvaluationsPerMinute: 1_200_000,
        maxEvaluationsPerDay: null,
      });
    });

    it('PUT replaces the explicit limits; they override the preset (null: unlimited), the rest follows the tier', async () => {
      const res = await put('acme', {
        maxEvaluationsPerMinute: 100,
        maxEvaluationsPerDay: null,
        tier: 'Enterprise',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        tenantId: 'acme',
        tier: 'Free', // the tier changes only by upgrade
        maxConcurrentExecutions: 5,
        maxEvaluationsPerMinute: 100,
        maxEvaluationsPerDay: null,
        overrides: { maxEvaluationsPerMinute: 100, maxEvaluationsPerDay: null },
        updatedBy: 'alice',
        updatedAt: expect.any(String),
      });
      expect((await api.get(`${Q('acme')}/limits`)).body).toEqual(res.body);
      const replaced = await put('acme', { maxConcurrentExecutions: 0 });
      expect(replaced.body).toMatchObject({
        maxConcurrentExecutions: 0,
        maxEvaluationsPerMinute: 600,
        maxEvaluationsPerDay: 50_000,
        overrides: { maxConcurrentExecutions: 0 },
      });
      const cleared = await put('acme', {});
      expect(cleared.body).toMatchObject({ ...FREE, overrides: {} });
    });

    it('refuses bad limits with 400 VALIDATION_FAILED naming each field, and writes nothing', async () => {
      await put('acme', { maxEvaluationsPerMinute: 42 });
      for (const body of [
        { maxEvaluationsPerMinute: -1 },
        { maxEvaluationsPerMinute: 1.5 },
        { maxEvaluationsPerMinute: '10' },
        { maxConcurrentExecutions: 5_000_000 },
        { maxEvaluationsPerMinute: 1, maxEvaluationsPerDay: true },
      ]) {
        const res = await put('acme', body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(res.body.traceId).toEqual(expect.any(String));
        const bad = Object.keys(body).filter((k) => (body as any)[k] !== 1);
        expect([...new Set(res.body.details.map((d: any) => d.field))]).toEqual(bad);
      }
      const twoBad = await put('acme', { maxConcurrentExecutions: -3, maxEvaluationsPerDay: 'lots' });
      expect(twoBad.body.details.map((d: any) => d.field)).toEqual(
        expect.arrayContaining(['maxConcurrentExecutions', 'maxEvaluationsPerDay']),
      );
      for (const body of [[], [{ maxEvaluationsPerMinute: 1 }], 'max', 5]) {
        const res = await put('acme', body);
        expect([body, res.status]).toEqual([body, 400]);
        expect(res.body.code).toMatch(/VALIDATION_FAILED|MALFORMED_JSON/);
      }
      const malformed = await fetch(`${a.url}${Q('acme')}/limits`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme' },
        body: '{"maxEvaluationsPerMinute": 5',
      });
      expect(malformed.status).toBe(400);
      expect((await api.get(`${Q('acme')}/limits`)).body.overrides).toEqual({ maxEvaluationsPerMinute: 42 });
    });

    it('upgrade applies the preset of the tier and clears the overrides; an unknown tier is 400 UNKNOWN_TIER', async () => {
      const res = await api.post(`${Q('acme')}/upgrade`, { tier: 'Licensed' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        tier: 'Licensed',
        maxConcurrentExecutions: 50,
        maxEvaluationsPerMinute: 60_000,
        maxEvaluationsPerDay: 10_000_000,
        overrides: {},
        updatedBy: 'alice',
      });
      const unknown = await api.post(`${Q('acme')}/upgrade`, { tier: 'Platinum' });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ code: 'UNKNOWN_TIER', details: [{ field: 'tier' }] });
      expect((await api.post(`${Q('acme')}/upgrade`, { tier: 7 })).body.code).toBe('UNKNOWN_TIER');
      for (const body of [[], 'Enterprise'])
        expect((await api.call('POST', `${Q('acme')}/upgrade`, body)).status).toBe(400);
      expect((await api.get(`${Q('acme')}/limits`)).body.tier).toBe('Licensed');
      const missing = await api.post(`${Q('acme')}/upgrade`, {});
      expect(missing.status).toBe(400);
      expect(missing.body.details[0].field).toBe('tier');
      // PUT after an upgrade keeps the tier
      expect((await put('acme', { maxConcurrentExecutions: 7 })).body).toMatchObject({
        tier: 'Licensed',
        maxConcurrentExecutions: 7,
        maxEvaluationsPerMinute: 60_000,
      });
      expect((await api.post(`${Q('acme')}/upgrade`, { tier: 'enterprise' })).body).toMatchObject({
        tier: 'Enterprise',
        maxEvaluationsPerDay: null,
        overrides: {},
      });
    });

    it('refuses another tenant than the caller (x-tenant-id when authorization is off): 403 TENANT_MISMATCH', async () => {
      for (const res of [
        await api.get(`${Q('globex')}/usage`),
        await api.get(`${Q('globex')}/limits`),
        await api.call('PUT', `${Q('globex')}/limits`, { maxConcurrentExecutions: 1 }),
        await api.post(`${Q('globex')}/upgrade`, { tier: 'Enterprise' }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('TENANT_MISMATCH');
      }
      expect((await client(a.url).get(`${Q('default')}/limits`)).status).toBe(200);
      expect((await client(a.url).get(`${Q('globex')}/limits`)).status).toBe(403);
      expect((await client(a.url, { 'x-tenant-id': 'globex' }).get(`${Q('globex')}/limits`)).body.tier).toBe(
        'Free',
      );
    });
  });

  describe('QuotaGate', () => {
    it('admits from a reserved chunk without waiting, and usage counts the minute and day windows', async () => {
      await put('counted', { maxConcurrentExecutions: 10 });
      const first = await gateA.acquire('counted');
      const second = gateA.acquire('counted');
      first.release();
      (await second).release();
      const usage = await client(a.url, { 'x-tenant-id': 'counted' }).get(`${Q('counted')}/usage`);
      expect(usage.status).toBe(200);
      expect(usage.body).toMatchObject({
        tenantId: 'counted',
        tier: 'Free',
        evaluations: {
          minute: { used: expect.any(Number), limit: 600, resetsAt: expect.any(String) },
          day: { used: expect.any(Number), limit: 50_000, resetsAt: expect.any(String) },
        },
        concurrency: { inUse: expect.any(Number), limit: 10 },
      });
      const { minute, day } = usage.body.evaluations;
      // reserved evaluations count as used: at least the two taken, at most a chunk ahead
      expect(minute.used).toBeGreaterThanOrEqual(2);
      expect(minute.used).toBeLessThanOrEqual(2 + 75);
      expect(day.used).toBe(minute.used);
      expect(minute.remaining).toBe(600 - minute.used);
      expect(Date.parse(minute.resetsAt) % 60_000).toBe(0);
      expect(Date.parse(minute.resetsAt)).toBeGreaterThan(Date.now());
      expect(Date.parse(day.resetsAt) % 86_400_000).toBe(0);
    });

    it('admits exactly the limit across two replicas hammering one tenant at once, then 429 QUOTA_EXCEEDED with Retry-After', async () => {
      await put('hammer', {
        maxEvaluationsPerDay: 37,
        maxEvaluationsPerMinute: null,
        maxConcurrentExecutions: null,
      });
      const calls = Array.from({ length: 60 }, (_, i) => attempt(i % 2 ? gateB : gateA, 'hammer'));
      const results = await Promise.all(calls);
      const admitted = results.filter(isLease);
      admitted.forEach((l) => l.release());
      expect(admitted).toHaveLength(37);
      expect(codes(results)).toEqual(['429 QUOTA_EXCEEDED']);
      // both replicas took part
      expect(results.filter((r, i) => i % 2 === 1 && isLease(r)).length).toBeGreaterThan(0);
      expect(results.filter((r, i) => i % 2 === 0 && isLease(r)).length).toBeGreaterThan(0);
      // a second wave on either replica is refused too, with the day window's Retry-After
      const refused = (await attempt(gateB, 'hammer')) as AppError;
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ status: 429, code: 'QUOTA_EXCEEDED' });
      expect(refused.details).toEqual([{ field: 'maxEvaluationsPerDay', message: 'limit 37 reached' }]);
      expect(Math.abs(Number(refused.headers!['retry-after']) - secondsToMidnight())).toBeLessThan(3);
      expect((await attempt(gateA, 'hammer')) instanceof AppError).toBe(true);
      const usage = await client(b.url, { 'x-tenant-id': 'hammer' }).get(`${Q('hammer')}/usage`);
      expect(usage.body.evaluations.day).toMatchObject({ used: 37, limit: 37, remaining: 0 });
    });

    it('refuses past the per-minute limit with Retry-After until the minute ends; raising the limit admits again', async () => {
      await awayFromMinuteEnd();
      await put('minute', { maxEvaluationsPerMinute: 5 });
      const results = [];
      for (let i = 0; i < 8; i++) results.push(await attempt(i % 2 ? gateB : gateA, 'minute'));
      results.filter(isLease).forEach((l) => l.release());
      expect(results.filter(isLease)).toHaveLength(5);
      const refused = results[7] as AppError;
      expect(refused).toMatchObject({ status: 429, code: 'QUOTA_EXCEEDED' });
      expect(refused.details![0].field).toBe('maxEvaluationsPerMinute');
      const retryAfter = Number(refused.headers!['retry-after']);
      const left = Math.ceil((60_000 - (Date.now() % 60_000)) / 1000);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(Math.abs(retryAfter - left)).toBeLessThanOrEqual(1);
      // a change on A reaches B over the bus: B admits again without waiting for its cache to expire
      await put('minute', { maxEvaluationsPerMinute: 7 });
      let onB: QuotaLease | AppError = await attempt(gateB, 'minute');
      for (let i = 0; i < 40 && !isLease(onB); i++) {
        await sleep(50);
        onB = await attempt(gateB, 'minute');
      }
      expect(isLease(onB)).toBe(true);
    });

    it('keeps concurrency within the limit across replicas, reuses released slots locally and hands idle ones back', async () => {
      await put('busy', {
        maxConcurrentExecutions: 4,
        maxEvaluationsPerMinute: null,
        maxEvaluationsPerDay: null,
      });
      const wave = await Promise.all(
        Array.from({ length: 20 }, (_, i) => attempt(i % 2 ? gateB : gateA, 'busy')),
      );
      const leases = wave.filter(isLease);
      expect(leases).toHaveLength(4);
      expect(codes(wave)).toEqual(['429 CONCURRENCY_LIMIT_EXCEEDED']);
      const refused = wave.find((r) => !isLease(r)) as AppError;
      expect(refused.headers).toEqual({ 'retry-after': '1' });
      expect(refused.details).toEqual([{ field: 'maxConcurrentExecutions', message: 'limit 4 reached' }]);

      // On the replica that holds a slot, a released slot is taken again at once, without a database round trip.
      const onA = wave.map((r, i) => ({ r, gate: i % 2 ? gateB : gateA })).find((x) => isLease(x.r))!;
      (onA.r as QuotaLease).release();
      (onA.r as QuotaLease).release(); // idempotent
      const again = onA.gate.acquire('busy');
      expect(typeof (again as Promise<unknown>).then).toBe('undefined');
      expect((await attempt(onA.gate, 'busy')) instanceof AppError).toBe(true);

      // usage reports the leases' slots in use (as of their last renewal)
      await sleep(SYNC_MS * 2);
      const usage = await client(a.url, { 'x-tenant-id': 'busy' }).get(`${Q('busy')}/usage`);
      expect(usage.body.concurrency).toEqual({ inUse: 4, leased: 4, limit: 4 });

      // Everything released: within two renewals the idle slots go back, and one replica can take all four.
      (again as QuotaLease).release();
      leases.filter((l) => l !== onA.r).forEach((l) => l.release());
      await sleep(SYNC_MS * 3 + 300);
      const onlyB = await Promise.all(Array.from({ length: 6 }, () => attempt(gateB, 'busy')));
      expect(onlyB.filter(isLease)).toHaveLength(4);
      onlyB.filter(isLease).forEach((l) => held.push(l));
      expect((await attempt(gateA, 'busy')) instanceof AppError).toBe(true);
      held.splice(0).forEach((l) => l.release());
    });

    it("ignores a dead replica's lease once it expires", async () => {
      await put('zombie', { maxConcurrentExecutions: 3 });
      const db = a.service.app.get(Database).dataSource;
      await db.query(
        `INSERT INTO quota_concurrency_leases (tenant_id, replica_id, slots, in_use, expires_at)
         VALUES ('zombie', 'dead-replica', 3, 3, now() + interval '1500 milliseconds')`,
      );
      const refused = await attempt(gateA, 'zombie');
      expect(refused).toMatchObject({ status: 429, code: 'CONCURRENCY_LIMIT_EXCEEDED' });
      const usage = await client(a.url, { 'x-tenant-id': 'zombie' }).get(`${Q('zombie')}/usage`);
      expect(usage.body.concurrency).toMatchObject({ inUse: 3, limit: 3 });
      await sleep(1800);
      const leases = await Promise.all([
        attempt(gateA, 'zombie'),
        attempt(gateB, 'zombie'),
        attempt(gateB, 'zombie'),
      ]);
      expect(leases.every(isLease)).toBe(true);
      expect(await attempt(gateA, 'zombie')).toMatchObject({ code: 'CONCURRENCY_LIMIT_EXCEEDED' });
      leases.filter(isLease).forEach((l) => l.release());
      const rows = await db.query(
        `SELECT replica_id FROM quota_concurrency_leases WHERE tenant_id = 'zombie'`,
      );
      expect(rows.map((r: any) => r.replica_id)).not.toContain('dead-replica');
    });

    it('admits an unlimited tenant without touching the database and writes its usage on the sync timer', async () => {
      await put('unlimited', {
        maxConcurrentExecutions: null,
        maxEvaluationsPerMinute: null,
        maxEvaluationsPerDay: null,
      });
      (await gateA.acquire('unlimited')).release(); // the first call reads the limits
      for (let i = 0; i < 99; i++) {
        const lease = gateA.acquire('unlimited');
        expect(typeof (lease as Promise<unknown>).then).toBe('undefined');
        (lease as QuotaLease).release();
      }
      await sleep(SYNC_MS * 3);
      const usage = await client(a.url, { 'x-tenant-id': 'unlimited' }).get(`${Q('unlimited')}/usage`);
      expect(usage.body.evaluations.day).toMatchObject({ used: 100, limit: null, remaining: null });
      expect(usage.body.concurrency.limit).toBeNull();
    });

    it('refuses everything at a limit of 0', async () => {
      await put('closed', { maxEvaluationsPerMinute: 0 });
      expect(await attempt(gateA, 'closed')).toMatchObject({ status: 429, code: 'QUOTA_EXCEEDED' });
      await put('closed', { maxConcurrentExecutions: 0 });
      expect(await attempt(gateA, 'closed')).toMatchObject({
        status: 429,
        code: 'CONCURRENCY_LIMIT_EXCEEDED',
      });
    });
  });
});

const SECRET = 'shared-hmac-secret-for-control-plane-tests-0123';

describe('tenant quotas with authorization enabled', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        ...operatorAuthOverrides(SECRET),
        'ControlPlaneRuntimeInfo:Tier': 'Enterprise',
        'Quotas:DefaultTier': 'Licensed',
        'Quotas:Enabled': false,
      },
    });
  });
  afterAll(() => sut?.stop());

  const as = async (name: string, roles: string[], tenant = 'acme', extra: Record<string, string> = {}) => {
    const token = await operatorToken(SECRET, name, roles, tenant);
    return client(sut.url, { authorization: `Bearer ${token}`, ...extra });
  };

  it('needs an authenticated user (401)', async () => {
    for (const path of [`${Q('acme')}/usage`, `${Q('acme')}/limits`])
      expect((await client(sut.url, { 'x-tenant-id': 'acme' }).get(path)).status).toBe(401);
    expect((await client(sut.url).call('PUT', `${Q('acme')}/limits`, {})).status).toBe(401);
  });

  it("reads the caller's own tenant only: the token's tenant, not the header (403 TENANT_MISMATCH)", async () => {
    const viewer = await as('vera', ['Viewer'], 'acme', { 'x-tenant-id': 'globex' });
    const limits = await viewer.get(`${Q('acme')}/limits`);
    expect(limits.status).toBe(200);
    expect(limits.body).toMatchObject({ tenantId: 'acme', tier: 'Licensed' }); // Quotas:DefaultTier wins
    expect((await viewer.get(`${Q('acme')}/usage`)).status).toBe(200);
    const other = await viewer.get(`${Q('globex')}/usage`);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('TENANT_MISMATCH');
  });

  it('changes limits and tiers with the Admin role only (403 ROLE_REQUIRED)', async () => {
    const viewer = await as('vera', ['Viewer']);
    const approver = await as('april', ['Approver']);
    const admin = await as('adam', ['Admin']);
    for (const who of [viewer, approver]) {
      const denied = await who.call('PUT', `${Q('acme')}/limits`, { maxConcurrentExecutions: 1 });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('ROLE_REQUIRED');
      const upgrade = await who.post(`${Q('acme')}/upgrade`, { tier: 'Enterprise' });
      expect(upgrade.body.code).toBe('ROLE_REQUIRED');
    }
    expect((await admin.get(`${Q('acme')}/limits`)).body.overrides).toEqual({});
    const saved = await admin.call('PUT', `${Q('acme')}/limits`, { maxConcurrentExecutions: 1 });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ maxConcurrentExecutions: 1, updatedBy: 'adam' });
    const foreign = await admin.call('PUT', `${Q('globex')}/limits`, { maxConcurrentExecutions: 1 });
    expect(foreign.body.code).toBe('TENANT_MISMATCH');
    const upgraded = await admin.post(`${Q('acme')}/upgrade`, { tier: 'Free' });
    expect(upgraded.body).toMatchObject({ tier: 'Free', maxConcurrentExecutions: 5, overrides: {} });
    const operator = await as('pat', ['Operator']);
    expect((await operator.post(`${Q('acme')}/upgrade`, { tier: 'Free' })).status).toBe(403);
  });

  it('admits everything when Quotas:Enabled is false', () => {
    const gate = sut.service.app.get(QuotaGate);
    const lease = gate.acquire('acme');
    expect(typeof (lease as Promise<unknown>).then).toBe('undefined');
    (lease as QuotaLease).release();
  });
});
