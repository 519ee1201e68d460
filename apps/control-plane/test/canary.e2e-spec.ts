import { Database, EventBus, InProcessEventBus, RunningService, startService } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { randomUUID } from 'node:crypto';
import { controlPlaneService } from '../src';
import { CanaryRouter } from '../src/canary/application/canary-router';
import { canaryBucket } from '../src/canary/domain/canary-bucket';
import { ExecutionAuditQueries } from '../src/execution-audit/execution-record';
import {
  A,
  B,
  client,
  connectHub,
  nextEvent,
  operatorAuthOverrides,
  operatorToken,
  rulesDoc,
} from './helpers';

const CANARY = '/api/v1/canary';
const CP = '/api/v1/control-plane/canary';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Api = ReturnType<typeof client>;

/** Saves `versions` versions of a workflow and activates version 1 (approval off). */
async function workflow(api: Api, name: string, versions = 3) {
  for (let i = 1; i <= versions; i++)
    expect((await api.post(`${A}/${name}/save`, rulesDoc(i))).status).toBe(200);
  expect((await api.post(`${A}/${name}/activate/1`)).status).toBe(200);
}

async function statuses(api: Api, name: string) {
  const res = await api.get(`${A}/${name}/versions`);
  return {
    activeVersion: res.body.activeVersion,
    versions: Object.fromEntries(res.body.versions.map((v: any) => [v.version, v.status])),
  };
}

async function auditActions(api: Api, name: string, count: number) {
  const res = await api.get(`${A}/${name}/audit?page=1&pageSize=${count}`);
  return res.body.entries.map((e: any) => e.action);
}

async function waitFor<T>(probe: () => T, done: (value: T) => boolean, timeoutMs = 5000) {
  const started = Date.now();
  let value = probe();
  while (!done(value) && Date.now() - started < timeoutMs) {
    await new Promise((r) => setTimeout(r, 5));
    value = probe();
  }
  return { value, ms: Date.now() - started };
}

describe('canary rollouts (RuleControlPlane:RequireApproval=false)', () => {
  let sut: ServiceUnderTest;
  let api: Api;
  let router: CanaryRouter;

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': false },
    });
    // The shared `default` tenant owns these rule sets: they serve every tenant without its own, so its
    // rollouts can target other tenants (a tenant's own rule set serves only itself).
    api = client(sut.url, { 'x-tenant-id': 'default', 'x-actor': 'alice' });
    router = sut.service.app.get(CanaryRouter);
  });
  afterAll(() => sut?.stop());

  it('POST /api/v1/canary starts a tenant-targeted rollout (201): only targeted tenants run the canary', async () => {
    await workflow(api, 'loan');
    const started = await api.post(CANARY, {
      workflowName: 'loan',
      version: 2,
      targetTenantIds: ['globex', 'initech', 'globex'],
    });
    expect(started.status).toBe(201);
    expect(started.body).toEqual({
      rolloutId: expect.stringMatching(UUID),
      workflowName: 'loan',
      version: 2,
      previousActiveVersion: 1,
      status: 'Active',
      targetPercentage: null,
      targetTenantIds: ['globex', 'initech'],
      createdAt: expect.any(String),
      startedAt: started.body.createdAt,
      createdBy: 'alice',
      promotedAt: null,
      rolledBackAt: null,
      reason: null,
    });
    const { rolloutId } = started.body;
    expect(router.route('default', 'loan', 'globex', 'k1')).toEqual({ version: 2, rolloutId });
    expect(router.route('default', 'loan', 'initech', 'k2')).toEqual({ version: 2, rolloutId });
    expect(router.route('default', 'loan', 'acme', 'k1')).toBeNull();
    expect(router.route('default', 'pricing', 'globex', 'k1')).toBeNull();
    expect(router.route('acme', 'loan', 'globex', 'k1')).toBeNull();
    // the rule set itself is untouched: version 1 stays active for everyone else
    expect(await statuses(api, 'loan')).toEqual({
      activeVersion: 1,
      versions: { 1: 'Active', 2: 'Draft', 3: 'Draft' },
    });
    expect(await auditActions(api, 'loan', 1)).toEqual(['CANARY_START']);
    const list = await api.get(CANARY);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([started.body]);
  });

  it('refuses a start that breaks a rule, and writes nothing (404/409/400)', async () => {
    await workflow(api, 'errs');
    const before = (await api.get(CANARY)).body.length;
    const cases: [unknown, number, string][] = [
      [{ workflowName: 'nope', version: 1 }, 404, 'RULESET_NOT_FOUND'],
      [{ workflowName: 'errs', version: 9 }, 404, 'VERSION_NOT_FOUND'],
      [{ workflowName: 'errs', version: 1 }, 409, 'CANARY_VERSION_ACTIVE'],
      [{ workflowName: 'loan', version: 3 }, 409, 'CANARY_ALREADY_ACTIVE'],
      [
        { workflowName: 'errs', version: 2, targetPercentage: 10, targetTenantIds: ['x'] },
        400,
        'CANARY_TARGET_CONFLICT',
      ],
      [{ workflowName: 'errs', version: 2, targetPercentage: 0 }, 400, 'INVALID_TARGET_PERCENTAGE'],
      [{ workflowName: 'errs', version: 2, targetPercentage: 101 }, 400, 'INVALID_TARGET_PERCENTAGE'],
      [{ workflowName: 'errs', version: 2, targetPercentage: 2.5 }, 400, 'INVALID_TARGET_PERCENTAGE'],
      [{ workflowName: 'errs', version: 2, targetPercentage: '10' }, 400, 'INVALID_TARGET_PERCENTAGE'],
      [{ workflowName: 'errs', version: 2, targetTenantIds: [] }, 400, 'INVALID_TARGET_TENANTS'],
      [{ workflowName: 'errs', version: 2, targetTenantIds: ['bad tenant'] }, 400, 'INVALID_TARGET_TENANTS'],
      [{ workflowName: 'errs', version: 2, targetTenantIds: 'globex' }, 400, 'INVALID_TARGET_TENANTS'],
      [{ workflowName: 'errs' }, 400, 'VALIDATION_FAILED'],
      [{ workflowName: 'bad name!', version: 2 }, 400, 'INVALID_WORKFLOW_NAME'],
    ];
    for (const [body, status, code] of cases) {
      const res = await api.post(CANARY, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status, code });
    }
    expect((await api.get(CANARY)).body).toHaveLength(before);
    expect(await auditActions(api, 'errs', 1)).toEqual(['ACTIVATE']);
  });

  it('defaults to 1 percent; a percentage rollout routes exactly the keys whose canaryBucket is below it', async () => {
    await workflow(api, 'pct');
    const one = await api.post(CANARY, { workflowName: 'pct', version: 2, targetPercentage: null });
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({ targetPercentage: 1, targetTenantIds: null });
    expect(
      (await api.post(`${CANARY}/${one.body.rolloutId}/rollback`, { reason: 'retry at 30' })).status,
    ).toBe(200);
    const thirty = await api.post(CANARY, { workflowName: 'pct', version: 2, targetPercentage: 30 });
    expect(thirty.status).toBe(201);
    const keys = Array.from({ length: 2000 }, (_, i) => `request-${i}`);
    let routed = 0;
    for (const key of keys) {
      const decision = router.route('default', 'pct', `tenant-${key.length}`, key);
      const expected =
        canaryBucket('pct', key) < 30 ? { version: 2, rolloutId: thirty.body.rolloutId } : null;
      expect(decision).toEqual(expected);
      if (decision) routed++;
    }
    expect(routed / keys.length).toBeGreaterThan(0.26);
    expect(routed / keys.length).toBeLessThan(0.34);
  });

  it('promote (Active → Promoted): the version becomes active for all, the previous one is archived', async () => {
    const [rollout] = (await api.get(CANARY)).body.filter((r: any) => r.workflowName === 'loan');
    const promoted = await api.post(`${CANARY}/${rollout.rolloutId}/promote`, {}, { 'x-actor': 'bob' });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({
      rolloutId: rollout.rolloutId,
      status: 'Promoted',
      promotedAt: expect.any(String),
      workflowName: 'loan',
      version: 2,
      previousActiveVersion: 1,
    });
    expect(await statuses(api, 'loan')).toEqual({
      activeVersion: 2,
      versions: { 1: 'Archived', 2: 'Active', 3: 'Draft' },
    });
    expect(router.route('default', 'loan', 'globex', 'k1')).toBeNull();
    expect(await auditActions(api, 'loan', 4)).toEqual([
      'CANARY_PROMOTE',
      'ACTIVATE',
      'ARCHIVE',
      'CANARY_START',
    ]);
    expect((await api.get(`${B}/audit/verify`)).body).toMatchObject({ valid: true });
    const listed = (await api.get(CANARY)).body.find((r: any) => r.rolloutId === rollout.rolloutId);
    expect(listed).toMatchObject({
      status: 'Promoted',
      promotedAt: promoted.body.promotedAt,
      rolledBackAt: null,
    });
    for (const action of ['promote', 'rollback']) {
      const again = await api.post(`${CANARY}/${rollout.rolloutId}/${action}`, { reason: 'late' });
      expect([again.status, again.body.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    }
  });

  it('rollback (Active → RolledBack): reason required, routing stops at once, the active version stays', async () => {
    // the targets are free again after the promotion
    const started = await api.post(CANARY, { workflowName: 'loan', version: 3, targetTenantIds: ['globex'] });
    expect(started.status).toBe(201);
    const { rolloutId } = started.body;
    expect(router.route('default', 'loan', 'globex', 'k')).toEqual({ version: 3, rolloutId });
    for (const body of [{}, { reason: '   ' }, { reason: 42 }]) {
      const refused = await api.post(`${CANARY}/${rolloutId}/rollback`, body);
      expect([refused.status, refused.body.code]).toEqual([400, 'ROLLBACK_REASON_REQUIRED']);
    }
    expect(router.route('default', 'loan', 'globex', 'k')).toEqual({ version: 3, rolloutId });
    const rolledBack = await api.post(`${CANARY}/${rolloutId}/rollback`, { reason: 'error rate up' });
    expect(rolledBack.status).toBe(200);
    expect(rolledBack.body).toEqual({
      rolloutId,
      status: 'RolledBack',
      rolledBackAt: expect.any(String),
      reason: 'error rate up',
      workflowName: 'loan',
      version: 3,
    });
    expect(router.route('default', 'loan', 'globex', 'k')).toBeNull();
    expect(await statuses(api, 'loan')).toEqual({
      activeVersion: 2,
      versions: { 1: 'Archived', 2: 'Active', 3: 'Draft' },
    });
    const entries = (await api.get(`${A}/loan/audit?page=1&pageSize=1`)).body.entries;
    expect(entries[0]).toMatchObject({
      action: 'CANARY_ROLLBACK',
      actor: 'alice',
      version: 3,
      detail: `rollout ${rolloutId} rolled back: error rate up`,
    });
    const listed = (await api.get(CANARY)).body.find((r: any) => r.rolloutId === rolloutId);
    expect(listed).toMatchObject({
      status: 'RolledBack',
      reason: 'error rate up',
      rolledBackAt: expect.any(String),
    });
    for (const action of ['promote', 'rollback']) {
      const again = await api.post(`${CANARY}/${rolloutId}/${action}`, { reason: 'again' });
      expect([again.status, again.body.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    }
  });

  it('answers 404 ROLLOUT_NOT_FOUND for unknown or malformed rollout ids', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      for (const action of ['promote', 'rollback']) {
        const res = await api.post(`${CANARY}/${id}/${action}`, { reason: 'x' });
        expect([res.status, res.body.code]).toEqual([404, 'ROLLOUT_NOT_FOUND']);
      }
    }
  });

  it('rule-engine family: canary-start with progress, rollout metrics, promote/rollback by body rolloutId', async () => {
    await workflow(api, 'fam2');
    const started = await api.post(`${A}/fam2/canary-start`, {
      version: 2,
      targetPercentage: 20,
      actor: 'carol',
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      workflowName: 'fam2',
      version: 2,
      status: 'Active',
      createdBy: 'carol',
    });
    const { progress } = started.body;
    expect(progress).toEqual({
      percentage: 20,
      tenantsAffected: progress.totalTenants,
      totalTenants: expect.any(Number),
    });
    expect(progress.totalTenants).toBeGreaterThanOrEqual(1);
    const { rolloutId } = started.body;

    const metrics = await api.get(`${A}/fam2/canary/${rolloutId}`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatchObject({
      rolloutId,
      version: 2,
      status: 'Active',
      activeVersion: 1,
      progress,
    });
    let auditProvided = true;
    try {
      sut.service.app.get(ExecutionAuditQueries, { strict: false });
    } catch {
      auditProvided = false;
    }
    expect(metrics.body.armsAvailable).toBe(auditProvided);
    if (auditProvided)
      expect(metrics.body.arms).toEqual([
        expect.objectContaining({ arm: 'active', version: 1, executions: expect.any(Number) }),
        expect.objectContaining({ arm: 'canary', version: 2, errorRate: expect.any(Number) }),
      ]);
    else expect(metrics.body.arms).toEqual([]);
    expect((await api.get(`${A}/loan/canary/${rolloutId}`)).body.code).toBe('ROLLOUT_NOT_FOUND');
    expect((await api.get(`${A}/fam2/canary/${randomUUID()}`)).status).toBe(404);

    const noId = await api.post(`${A}/fam2/canary/promote`, {});
    expect([noId.status, noId.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const otherWorkflow = await api.post(`${A}/loan/canary/promote`, { rolloutId });
    expect([otherWorkflow.status, otherWorkflow.body.code]).toEqual([404, 'ROLLOUT_NOT_FOUND']);
    const promoted = await api.post(`${A}/fam2/canary/promote`, { rolloutId, actor: 'dave' });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ rolloutId, status: 'Promoted', previousActiveVersion: 1 });
    expect((await statuses(api, 'fam2')).activeVersion).toBe(2);
    expect((await api.get(`${A}/fam2/audit?page=1&pageSize=1`)).body.entries[0]).toMatchObject({
      action: 'CANARY_PROMOTE',
      actor: 'dave',
    });

    const second = await api.post(`${A}/fam2/canary-start`, {
      version: 3,
      targetTenantIds: ['globex', 'acme'],
    });
    expect(second.status).toBe(201);
    expect(second.body.progress).toMatchObject({ tenantsAffected: 2 });
    const noReason = await api.post(`${A}/fam2/canary/rollback`, { rolloutId: second.body.rolloutId });
    expect([noReason.status, noReason.body.code]).toEqual([400, 'ROLLBACK_REASON_REQUIRED']);
    const rolledBack = await api.post(`${A}/fam2/canary/rollback`, {
      rolloutId: second.body.rolloutId,
      reason: 'latency',
    });
    expect(rolledBack.body).toMatchObject({ status: 'RolledBack', reason: 'latency' });
    expect((await api.get(`${A}/fam2/canary/${second.body.rolloutId}`)).body).toMatchObject({
      status: 'RolledBack',
      reason: 'latency',
    });
  });

  it('control-plane family: start by path version, canary state, promote/rollback of the newest rollout', async () => {
    await workflow(api, 'fam3');
    const none = await api.post(`${CP}/fam3/promote`);
    expect([none.status, none.body.code]).toEqual([404, 'ROLLOUT_NOT_FOUND']);
    expect((await api.get(`${CP}/ghost`)).body.code).toBe('RULESET_NOT_FOUND');
    expect((await api.post(`${CP}/fam3/two/start`)).body.code).toBe('INVALID_VERSION');

    const started = await api.post(`${CP}/fam3/2/start`, { targetTenantIds: ['globex'] });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ version: 2, status: 'Active', targetTenantIds: ['globex'] });
    const state = await api.get(`${CP}/fam3`);
    expect(state.status).toBe(200);
    expect(state.body).toEqual({
      workflowName: 'fam3',
      activeVersion: 1,
      canary: started.body,
      rollouts: [started.body],
    });
    const promoted = await api.post(`${CP}/fam3/promote`);
    expect(promoted.body).toMatchObject({ rolloutId: started.body.rolloutId, status: 'Promoted' });
    expect((await api.get(`${CP}/fam3`)).body).toMatchObject({ activeVersion: 2, canary: null });

    const third = await api.post(`${CP}/fam3/3/start`);
    expect(third.body).toMatchObject({ version: 3, targetPercentage: 1 });
    expect((await api.post(`${CP}/fam3/rollback`)).body.code).toBe('ROLLBACK_REASON_REQUIRED');
    const rolledBack = await api.post(`${CP}/fam3/rollback`, { reason: 'wrong output' });
    expect(rolledBack.body).toMatchObject({ rolloutId: third.body.rolloutId, status: 'RolledBack' });
    const stale = await api.post(`${CP}/fam3/promote`);
    expect([stale.status, stale.body.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    expect((await api.get(`${CP}/fam3`)).body.rollouts.map((r: any) => r.status)).toEqual([
      'RolledBack',
      'Promoted',
    ]);
  });

  it('keeps tenants apart: rollouts are per owner tenant, a tenant runs one canary per workflow', async () => {
    const globex = client(sut.url, { 'x-tenant-id': 'globex', 'x-actor': 'gina' });
    expect((await globex.get(CANARY)).body).toEqual([]);
    const sharedRollout = (await api.get(CANARY)).body[0];
    const foreign = await globex.post(`${CANARY}/${sharedRollout.rolloutId}/rollback`, { reason: 'x' });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'ROLLOUT_NOT_FOUND']);

    // a tenant's own rule set serves only that tenant: its rollout can target itself, nobody else
    const acme = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'ann' });
    await workflow(acme, 'shared');
    const elsewhere = await acme.post(CANARY, {
      workflowName: 'shared',
      version: 2,
      targetTenantIds: ['hooli'],
    });
    expect([elsewhere.status, elsewhere.body.code]).toEqual([400, 'CANARY_TARGET_NOT_SERVED']);
    const mine = await acme.post(CANARY, { workflowName: 'shared', version: 2, targetTenantIds: ['acme'] });
    expect(mine.status).toBe(201);
    expect(router.route('acme', 'shared', 'acme', 'k')).toMatchObject({ rolloutId: mine.body.rolloutId });
    // its progress counts the tenants its rule set serves (itself), not the platform's tenants
    const mineMetrics = await acme.get(`${A}/shared/canary/${mine.body.rolloutId}`);
    expect(mineMetrics.body.progress).toEqual({ percentage: 100, tenantsAffected: 1, totalTenants: 1 });

    // the shared rollout cannot take a tenant that already runs a canary of the workflow
    await workflow(api, 'shared');
    const clash = await api.post(CANARY, {
      workflowName: 'shared',
      version: 2,
      targetTenantIds: ['hooli', 'acme'],
    });
    expect([clash.status, clash.body.code]).toEqual([409, 'CANARY_TENANT_ASSIGNED']);
    expect((await api.get(CANARY)).body.filter((r: any) => r.workflowName === 'shared')).toEqual([]);
    expect(router.route('default', 'shared', 'hooli', 'k')).toBeNull();
    const free = await api.post(CANARY, { workflowName: 'shared', version: 2, targetTenantIds: ['hooli'] });
    expect(free.status).toBe(201);
    expect(router.route('default', 'shared', 'hooli', 'k')).toMatchObject({ rolloutId: free.body.rolloutId });
  });

  it('pushes CanaryStateChanged { workflowName, status, rolloutId, version } to the owner tenant’s hub clients', async () => {
    await workflow(api, 'hubbed');
    const hub = await connectHub(sut.url, 'default');
    try {
      const active = nextEvent(hub, 'CanaryStateChanged');
      const started = await api.post(CANARY, { workflowName: 'hubbed', version: 2 });
      expect(await active).toMatchObject({
        workflowName: 'hubbed',
        status: 'Active',
        rolloutId: started.body.rolloutId,
        version: 2,
      });
      const rolledBack = nextEvent(hub, 'CanaryStateChanged');
      await api.post(`${CANARY}/${started.body.rolloutId}/rollback`, { reason: 'hub test' });
      expect(await rolledBack).toMatchObject({ status: 'RolledBack', rolloutId: started.body.rolloutId });
      const reactivated = nextEvent(hub, 'CanaryStateChanged');
      const again = await api.post(CANARY, { workflowName: 'hubbed', version: 3 });
      expect(await reactivated).toMatchObject({ status: 'Active', version: 3 });
      const promoted = nextEvent(hub, 'CanaryStateChanged');
      await api.post(`${CANARY}/${again.body.rolloutId}/promote`);
      expect(await promoted).toMatchObject({ status: 'Promoted', version: 3 });
    } finally {
      await hub.stop();
    }
  });
});

describe('canary rollouts with approval required', () => {
  let sut: ServiceUnderTest;
  let alice: Api;
  let bob: Api;

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': true },
    });
    alice = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    bob = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'bob' });
  });
  afterAll(() => sut?.stop());

  const approve = async (name: string, version: number) => {
    expect((await alice.post(`${B}/rulesets/${name}/${version}/submit`, { detail: 'review' })).status).toBe(
      200,
    );
    expect((await bob.post(`${B}/rulesets/${name}/${version}/approve`, { detail: 'ok' })).status).toBe(200);
  };

  it('only an Approved version can be rolled out; promote activates it and archives the previous', async () => {
    for (let i = 1; i <= 3; i++) await alice.post(`${A}/gated/save`, rulesDoc(i));
    await approve('gated', 1);
    expect((await bob.post(`${A}/gated/activate/1`)).status).toBe(200);
    const draft = await bob.post(CANARY, { workflowName: 'gated', version: 2 });
    expect([draft.status, draft.body.code]).toEqual([409, 'APPROVAL_REQUIRED']);
    await alice.post(`${B}/rulesets/gated/2/submit`, { detail: 'review' });
    const pending = await bob.post(CANARY, { workflowName: 'gated', version: 2 });
    expect([pending.status, pending.body.code]).toEqual([409, 'APPROVAL_REQUIRED']);
    await bob.post(`${B}/rulesets/gated/2/approve`, { detail: 'ok' });
    const started = await bob.post(CANARY, { workflowName: 'gated', version: 2, targetPercentage: 50 });
    expect(started.status).toBe(201);
    const promoted = await bob.post(`${CANARY}/${started.body.rolloutId}/promote`);
    expect(promoted.body).toMatchObject({ status: 'Promoted', previousActiveVersion: 1 });
    expect(await statuses(alice, 'gated')).toEqual({
      activeVersion: 2,
      versions: { 1: 'Archived', 2: 'Active', 3: 'Draft' },
    });
    const archived = await bob.post(CANARY, { workflowName: 'gated', version: 1 });
    expect([archived.status, archived.body.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
  });
});

describe('canary rollouts with RuleControlPlane:EnableCanary=false', () => {
  let sut: ServiceUnderTest;

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': false, 'RuleControlPlane:EnableCanary': false },
    });
  });
  afterAll(() => sut?.stop());

  it('answers 404 CANARY_DISABLED on every canary route and never routes to a canary', async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme' });
    await workflow(api, 'off');
    const id = randomUUID();
    const calls: [string, string, unknown?][] = [
      ['POST', CANARY, { workflowName: 'off', version: 2 }],
      ['GET', CANARY],
      ['POST', `${CANARY}/${id}/promote`, {}],
      ['POST', `${CANARY}/${id}/rollback`, { reason: 'x' }],
      ['POST', `${A}/off/canary-start`, { version: 2 }],
      ['GET', `${A}/off/canary/${id}`],
      ['POST', `${A}/off/canary/promote`, { rolloutId: id }],
      ['POST', `${A}/off/canary/rollback`, { rolloutId: id, reason: 'x' }],
      ['POST', `${CP}/off/2/start`, {}],
      ['GET', `${CP}/off`],
      ['POST', `${CP}/off/promote`, {}],
      ['POST', `${CP}/off/rollback`, { reason: 'x' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await api.call(method, path, body);
      expect({ path, status: res.status, code: res.body?.code }).toEqual({
        path,
        status: 404,
        code: 'CANARY_DISABLED',
      });
    }
    const router = sut.service.app.get(CanaryRouter);
    expect(router.activeRollouts).toEqual([]);
    expect(router.route('acme', 'off', 'acme', 'k')).toBeNull();
  });
});

describe('canary rollouts with authorization enabled (policies)', () => {
  const SECRET = 'shared-hmac-secret-for-control-plane-tests-0123';
  let sut: ServiceUnderTest;

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'RuleControlPlane:RequireApproval': false,
        ...operatorAuthOverrides(SECRET),
      },
    });
  });
  afterAll(() => sut?.stop());

  const as = async (name: string, roles: string[]) => {
    const token = await operatorToken(SECRET, name, roles);
    return client(sut.url, { authorization: `Bearer ${token}` });
  };

  it('needs a token; Viewer reads, Approver starts, promotes and rolls back', async () => {
    const admin = await as('adam', ['Admin']);
    const viewer = await as('vera', ['Viewer']);
    const approver = await as('april', ['Approver']);
    await workflow(admin, 'secured');
    expect((await client(sut.url).get(CANARY)).status).toBe(401);
    expect((await viewer.get(CANARY)).status).toBe(200);
    expect((await viewer.post(CANARY, { workflowName: 'secured', version: 2 })).status).toBe(403);
    const started = await approver.post(CANARY, { workflowName: 'secured', version: 2 });
    expect(started.status).toBe(201);
    expect(started.body.createdBy).toBe('april');
    expect((await viewer.get(`${A}/secured/canary/${started.body.rolloutId}`)).status).toBe(200);
    expect((await viewer.post(`${CANARY}/${started.body.rolloutId}/rollback`, { reason: 'x' })).status).toBe(
      403,
    );
    expect((await viewer.post(`${CP}/secured/promote`)).status).toBe(403);
    expect((await approver.post(`${CP}/secured/promote`)).status).toBe(200);
  });
});

/**
 * Two nodes on one database: with TEST_DATABASE_URL both use the same PostgreSQL database and, with
 * TEST_NATS_URL, NATS; otherwise node B connects to node A's embedded PGlite socket and both share an
 * in-process bus.
 */
describe('canary rollouts across two nodes sharing one database and bus', () => {
  let a: ServiceUnderTest;
  let b: RunningService;
  const shared: EventBus | undefined = process.env.TEST_NATS_URL
    ? undefined
    : new InProcessEventBus('/test/canary-shared');

  beforeAll(async () => {
    a = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: { 'RuleControlPlane:RequireApproval': false },
    });
    const socketDir = (a.service.app.get(Database).dataSource.options as { host?: string }).host;
    b = await startService(controlPlaneService, {
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      sharedBus: shared,
      overrides: {
        'ConnectionStrings:RuleControlPlaneDb':
          a.database.kind === 'postgres'
            ? a.database.url
            : `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir!)}`,
        'ConnectionStrings:Cache': process.env.TEST_NATS_URL ?? '',
        'RuleControlPlane:RequireApproval': false,
      },
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.stop();
    await shared?.close();
  });

  it('node B routes a rollout started on node A, and stops as soon as A rolls it back', async () => {
    const apiA = client(a.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    const routerB = b.app.get(CanaryRouter);
    await workflow(apiA, 'multi');
    const started = await apiA.post(CANARY, {
      workflowName: 'multi',
      version: 2,
      targetTenantIds: ['acme'],
    });
    expect(started.status).toBe(201);
    const seen = await waitFor(
      () => routerB.route('acme', 'multi', 'acme', 'k'),
      (d) => d !== null,
    );
    expect(seen.value).toEqual({ version: 2, rolloutId: started.body.rolloutId });
    // node B reads the same database: its state route shows the rollout too
    const apiB = client(b.url, { 'x-tenant-id': 'acme' });
    expect((await apiB.get(`${CP}/multi`)).body.canary).toMatchObject({ rolloutId: started.body.rolloutId });

    const rolledBack = await apiA.post(`${CANARY}/${started.body.rolloutId}/rollback`, {
      reason: 'node test',
    });
    expect(rolledBack.status).toBe(200);
    const stopped = await waitFor(
      () => routerB.route('acme', 'multi', 'acme', 'k'),
      (d) => d === null,
      2000,
    );
    expect(stopped.value).toBeNull();

    const promotedOnB = await apiB.post(`${A}/multi/canary-start`, { version: 3, targetPercentage: 100 });
    expect(promotedOnB.status).toBe(201);
    const routerA = a.service.app.get(CanaryRouter);
    const seenOnA = await waitFor(
      () => routerA.route('acme', 'multi', 'anyone', 'k'),
      (d) => d !== null,
    );
    expect(seenOnA.value).toEqual({ version: 3, rolloutId: promotedOnB.body.rolloutId });
  });
});
