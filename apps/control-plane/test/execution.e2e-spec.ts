import { Logger } from '@nestjs/common';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { controlPlaneService } from '../src';
import { BatchedExecutionAuditSink } from '../src/execution-audit/batched-execution-audit.sink';
import { A, B, client } from './helpers';

const EXECUTE = '/api/v1/rule-engine/execute';
const AUDIT = '/api/v1/audit/workflow';

const rules = (tier: string) => ({
  rules: [
    { id: 'big', name: 'Big amount', condition: 'input.amount > 1000', output: { tier, review: true } },
    { id: 'any', name: 'Any amount', condition: 'amount >= 0', output: { seen: true } },
  ],
});

const discount = {
  WorkflowName: 'discount',
  Rules: [
    {
      RuleName: 'GiveDiscount10',
      SuccessEvent: '10',
      ErrorMessage: 'One or more adjust rules failed.',
      RuleExpressionType: 'LambdaExpression',
      Expression:
        'input1.country == "india" AND input1.loyaltyFactor <= 2 AND input1.totalPurchasesToDate >= 5000',
    },
    {
      RuleName: 'GiveDiscount20',
      SuccessEvent: '20',
      RuleExpressionType: 'LambdaExpression',
      Expression:
        'input1.country == "india" && input1.loyaltyFactor >= 3 && input1.totalPurchasesToDate >= 10000',
    },
  ],
};

async function start(overrides: Record<string, unknown> = {}) {
  const sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
    overrides: {
      'RuleControlPlane:RequireApproval': false,
      'RuleControlPlane:EnableCanary': true,
      ...overrides,
    },
  });
  return sut;
}

async function auditItems(sut: ServiceUnderTest, tenant: string, workflow: string) {
  await sut.service.app.get(BatchedExecutionAuditSink).flush();
  const res = await client(sut.url, { 'x-tenant-id': tenant }).get(`${AUDIT}/${workflow}?pageSize=100`);
  expect(res.status).toBe(200);
  return res.body.items as any[];
}

describe('rule execution (Rules mode): POST /api/v1/rule-engine/execute/{workflowName}', () => {
  let sut: ServiceUnderTest;
  let acme: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await start();
    acme = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    await acme.post(`${A}/loan`, { ruleSet: rules('gold'), activateAfterSave: true });
  });
  afterAll(() => sut?.stop());

  it('runs the active version and records the execution in the workflow audit', async () => {
    const res = await acme.post(`${EXECUTE}/loan`, { facts: { amount: 5000 }, correlationId: 'corr-1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      workflowName: 'loan',
      tenantId: 'acme',
      version: 1,
      status: 'success',
      mode: 'Rules',
      arm: 'active',
      correlationId: 'corr-1',
      outputs: { tier: 'gold', review: true, seen: true },
      rulesMatched: ['Big amount', 'Any amount'],
      errors: [],
    });
    expect(res.body.traces).toBeUndefined();
    const small = await acme.post(`${EXECUTE}/loan`, { facts: { amount: 10 }, trace: true });
    expect(small.body.outputs).toEqual({ seen: true });
    expect(small.body.traces.map((t: any) => [t.ruleName, t.matched])).toEqual([
      ['Big amount', false],
      ['Any amount', true],
    ]);
    const items = await auditItems(sut, 'acme', 'loan');
    expect(items).toHaveLength(2);
    expect(items.find((i) => i.correlationId === 'corr-1')).toMatchObject({
      workflowName: 'loan',
      version: 1,
      tenantId: 'acme',
      rulesMatched: ['Big amount', 'Any amount'],
      executionTimeMs: expect.any(Number),
      executedAt: expect.any(String),
    });
    // another tenant sees none of it: it has no such workflow (404, spec 1's errors table)
    const other = await client(sut.url, { 'x-tenant-id': 'other' }).get(`${AUDIT}/loan?pageSize=100`);
    expect([other.status, other.body.code]).toEqual([404, 'RULESET_NOT_FOUND']);
  });

  it('serves a new activation at once and reports runtime failures in errors (status error, HTTP 200)', async () => {
    await acme.post(`${A}/loan`, { ruleSet: rules('platinum'), activateAfterSave: true });
    expect((await acme.post(`${EXECUTE}/loan`, { facts: { amount: 5000 } })).body).toMatchObject({
      version: 2,
      outputs: { tier: 'platinum' },
    });
    const odd = await acme.post(`${EXECUTE}/loan`, { facts: { amount: 'lots' } });
    expect(odd.status).toBe(200);
    expect(odd.body.rulesMatched).toEqual([]);
  });

  it('refuses bad requests with the envelope and a code naming the problem', async () => {
    const unknown = await acme.post(`${EXECUTE}/nope`, { facts: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'WORKFLOW_NOT_FOUND', traceId: expect.any(String) });
    expect((await acme.post(`${EXECUTE}/loan`, { facts: [1, 2] })).body.code).toBe('VALIDATION_FAILED');
    expect((await acme.post(`${EXECUTE}/loan`, { facts: {}, trace: 'yes' })).status).toBe(400);
    expect((await acme.post(`${EXECUTE}/bad name!`, { facts: {} })).body.code).toBe('INVALID_WORKFLOW_NAME');
    const malformed = await acme.call('POST', `${EXECUTE}/loan`, undefined, {
      'content-type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    const raw = await fetch(`${sut.url}${EXECUTE}/loan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme' },
      body: '{"facts": ',
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { code: string }).code).toBe('MALFORMED_JSON');
    await acme.post(`${A}/drafty/save`, rules('x'));
    expect((await acme.post(`${EXECUTE}/drafty`, { facts: {} })).body.code).toBe('NO_ACTIVE_VERSION');
    // the service keeps serving
    expect((await acme.post(`${EXECUTE}/loan`, { facts: { amount: 1 } })).status).toBe(200);
  });

  it('serves tenants without their own rule set from the shared default tenant', async () => {
    const platform = client(sut.url, { 'x-tenant-id': 'default' });
    await platform.post(`${A}/shared`, { ruleSet: rules('shared'), activateAfterSave: true });
    const res = await client(sut.url, { 'x-tenant-id': 'zeta' }).post(`${EXECUTE}/shared`, {
      facts: { amount: 5000 },
    });
    expect(res.body).toMatchObject({ tenantId: 'zeta', version: 1, outputs: { tier: 'shared' } });
  });

  it('runs legacy RulesEngine workflows (C#-style lambdas) and code-based rule sets', async () => {
    await acme.post(`${A}/discount`, { ruleSet: discount, activateAfterSave: true });
    const res = await acme.post(`${EXECUTE}/discount`, {
      facts: { country: 'india', loyaltyFactor: 1, totalPurchasesToDate: 6000 },
    });
    expect(res.body.rulesMatched).toEqual(['GiveDiscount10']);
    expect(res.body.outputs.successEvent).toBe('10');
    const unsupported = await acme.post(`${A}/discount`, {
      ruleSet: { ...discount, Rules: [{ RuleName: 'Bad', Expression: 'new Foo()' }] },
    });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.code).toBe('INVALID_RULESET');
    expect(unsupported.body.details[0].message).toMatch(/unsupported construct 'new' at column 1/);
    await acme.post(`${A}/eligibility`, {
      ruleSet: { type: 'code-based', rules: [{ code: 'AGE_CHECK', parameters: { minAge: 21 } }] },
      activateAfterSave: true,
    });
    const young = await acme.post(`${EXECUTE}/eligibility`, { facts: { applicant: { age: 19 } } });
    expect(young.body).toMatchObject({ outputs: {}, rulesMatched: [] });
    const old = await acme.post(`${EXECUTE}/eligibility`, { facts: { applicant: { age: 40 } } });
    expect(old.body.rulesMatched).toHaveLength(1);
    expect(old.body.outputs).toEqual({ applicantAge: 40, ageEligible: true });
  });

  it('dry-runs without side effects: the rule-engine result on /api/v1/rule-engine, the control-plane result (traces) on /api/v1/control-plane, both request forms', async () => {
    const b = await acme.post(`${A}/loan/dry-run`, { inputs: { amount: 5000 }, version: 1 });
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({
      executionId: expect.any(String),
      status: 'success',
      outputs: { tier: 'gold', seen: true },
      executionTime: expect.stringMatching(/ms$/),
      rulesExecuted: 2,
      sideEffectsApplied: false,
    });
    const a = await acme.post(`${B}/rulesets/loan/dry-run`, { inputs: { amount: 5000 } });
    expect(a.body).toMatchObject({
      rulesMatched: true,
      evaluationTimeMs: expect.any(Number),
      outputFacts: { tier: 'platinum' },
      errors: [],
      version: 2,
    });
    expect(a.body.traces[0]).toEqual({
      ruleName: 'Big amount',
      matched: true,
      failReason: null,
      outputs: { tier: 'platinum', review: true },
    });
    const docForm = await acme.post(`${B}/rulesets/loan/dry-run`, {
      ruleSet: rules('candidate'),
      context: { amount: 2000 },
      contextType: 'json',
    });
    expect(docForm.body.outputFacts).toMatchObject({ tier: 'candidate' });
    const docFormB = await acme.post(`${A}/loan/dry-run`, {
      ruleSet: rules('c2'),
      context: { amount: 2000 },
    });
    expect(docFormB.body.outputs).toMatchObject({ tier: 'c2' });

    const invalid = await acme.post(`${A}/loan/dry-run`, { ruleSet: { rules: [{ id: 'x' }] }, context: {} });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('INVALID_RULESET');
    expect((await acme.post(`${A}/loan/dry-run`, { inputs: {}, version: 99 })).body.code).toBe(
      'VERSION_NOT_FOUND',
    );
    expect((await acme.post(`${A}/loan/dry-run`, {})).status).toBe(400);
    expect((await acme.post(`${A}/loan/dry-run`, { inputs: 'x' })).status).toBe(400);
    // nothing persisted: no version, no execution audit
    const before = (await auditItems(sut, 'acme', 'loan')).length;
    await acme.post(`${A}/loan/dry-run`, { inputs: { amount: 5 } });
    expect((await auditItems(sut, 'acme', 'loan')).length).toBe(before);
    expect((await acme.get(`${A}/loan/versions`)).body.totalVersions).toBe(2);
  });

  it('routes canary targets to the canary version under their own key, others to the active one', async () => {
    const platform = client(sut.url, { 'x-tenant-id': 'default' });
    await platform.post(`${A}/shared`, { ruleSet: rules('shared-v2'), activateAfterSave: false });
    const started = await platform.post('/api/v1/canary', {
      workflowName: 'shared',
      version: 2,
      targetTenantIds: ['beta'],
    });
    expect(started.status).toBe(201);
    const beta = await client(sut.url, { 'x-tenant-id': 'beta' }).post(`${EXECUTE}/shared`, {
      facts: { amount: 5000 },
    });
    expect(beta.body).toMatchObject({ version: 2, arm: 'canary', rolloutId: started.body.rolloutId });
    expect(beta.body.outputs.tier).toBe('shared-v2');
    const zeta = await client(sut.url, { 'x-tenant-id': 'zeta' }).post(`${EXECUTE}/shared`, {
      facts: { amount: 5000 },
    });
    expect(zeta.body).toMatchObject({ version: 1, arm: 'active', outputs: { tier: 'shared' } });
    const items = await auditItems(sut, 'beta', 'shared');
    expect(items[0]).toMatchObject({ version: 2, arm: 'canary' });
    // the active arm is the rollout's control group: tagged with the rollout, counted in its metrics
    const zetaItems = await auditItems(sut, 'zeta', 'shared');
    expect(zetaItems[0]).toMatchObject({ version: 1, arm: 'active', rolloutId: started.body.rolloutId });
    const metrics = await platform.get(`${A}/shared/canary/${started.body.rolloutId}`);
    expect(metrics.body.arms).toEqual([
      { arm: 'active', version: 1, executions: 1, errors: 0, errorRate: 0 },
      { arm: 'canary', version: 2, executions: 1, errors: 0, errorRate: 0 },
    ]);

    await platform.post(`/api/v1/canary/${started.body.rolloutId}/rollback`, { reason: 'enough' });
    const after = await client(sut.url, { 'x-tenant-id': 'beta' }).post(`${EXECUTE}/shared`, {
      facts: { amount: 5000 },
    });
    expect(after.body).toMatchObject({ version: 1, arm: 'active' });
  });

  it('enforces the tenant quota with 429 and Retry-After', async () => {
    await client(sut.url, { 'x-tenant-id': 'tiny' }).call('PUT', '/api/v1/tenants/tiny/quotas/limits', {
      maxEvaluationsPerDay: 2,
    });
    const tiny = client(sut.url, { 'x-tenant-id': 'tiny' });
    await tiny.post(`${A}/loan`, { ruleSet: rules('t'), activateAfterSave: true });
    const codes: number[] = [];
    let limited: any;
    for (let i = 0; i < 4; i++) {
      const r = await tiny.post(`${EXECUTE}/loan`, { facts: { amount: 1 } });
      codes.push(r.status);
      if (r.status === 429) limited = r;
    }
    expect(codes).toEqual([200, 200, 429, 429]);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.body.code).toMatch(/QUOTA/);
  });
});

describe('execution router modes', () => {
  it('Shadow: answers with the active version, runs the candidate without side effects and audits the diff', async () => {
    const sut = await start({
      'RuleEngineOptions:ExecutionRouter:Mode': 'Shadow',
      'RuleEngineOptions:ExecutionRouter:CandidateVersion': 2,
    });
    try {
      const api = client(sut.url, { 'x-tenant-id': 'acme' });
      await api.post(`${A}/loan`, { ruleSet: rules('gold'), activateAfterSave: true });
      await api.post(`${A}/loan`, { ruleSet: rules('silver'), activateAfterSave: false });
      const res = await api.post(`${EXECUTE}/loan`, { facts: { amount: 5000 }, correlationId: 'shadow-1' });
      expect(res.body).toMatchObject({ version: 1, mode: 'Shadow', outputs: { tier: 'gold' } });
      let item: any;
      for (let i = 0; i < 50 && !item?.shadowDiff; i++) {
        item = (await auditItems(sut, 'acme', 'loan')).find((x) => x.correlationId === 'shadow-1');
        if (!item?.shadowDiff) await new Promise((r) => setTimeout(r, 50));
      }
      expect(item.shadowDiff).toMatchObject({
        candidateVersion: 2,
        differences: [
          { field: 'tier', activeValue: 'gold', candidateValue: 'silver', severity: expect.any(String) },
        ],
      });
    } finally {
      await sut.stop();
    }
  });

  it('Shadow with a candidate version that does not exist marks every execution (issue 27 item 11)', async () => {
    const sut = await start({
      'RuleEngineOptions:ExecutionRouter:Mode': 'Shadow',
      'RuleEngineOptions:ExecutionRouter:CandidateVersion': 7,
    });
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      const api = client(sut.url, { 'x-tenant-id': 'acme' });
      await api.post(`${A}/loan`, { ruleSet: rules('gold'), activateAfterSave: true });
      // the activation warns: the workflow has no version 7, so nothing will be shadowed
      const activationWarning = () =>
        warn.mock.calls.find(([m]) =>
          /was activated, but .*CandidateVersion 7 does not exist/.test(
            typeof m === 'string' ? m : String((m as { msg?: string })?.msg),
          ),
        );
      for (let i = 0; i < 100 && !activationWarning(); i++) await new Promise((r) => setTimeout(r, 20));
      expect(activationWarning()?.[0]).toMatchObject({
        tenantId: 'acme',
        workflowName: 'loan',
        activatedVersion: 1,
        candidateVersion: 7,
      });
      const res = await api.post(`${EXECUTE}/loan`, {
        facts: { amount: 5000 },
        correlationId: 'shadow-missing',
      });
      expect(res.body).toMatchObject({ version: 1, mode: 'Shadow', outputs: { tier: 'gold' } });
      let item: any;
      for (let i = 0; i < 50 && !item?.shadowDiff; i++) {
        item = (await auditItems(sut, 'acme', 'loan')).find((x) => x.correlationId === 'shadow-missing');
        if (!item?.shadowDiff) await new Promise((r) => setTimeout(r, 50));
      }
      expect(item.shadowDiff).toMatchObject({
        candidateVersion: 7,
        candidateErrors: ['CANDIDATE_VERSION_NOT_FOUND'],
        differences: expect.arrayContaining([
          { field: 'tier', activeValue: 'gold', candidateValue: null, severity: 'high' },
        ]),
      });
    } finally {
      warn.mockRestore();
      await sut.stop();
    }
  });

  it('Hybrid: the rules share routes canary targets to the canary version too', async () => {
    const sut = await start({
      'RuleEngineOptions:ExecutionRouter:Mode': 'Hybrid',
      'RuleEngineOptions:ExecutionRouter:HybridRulesPercentage': 100,
    });
    try {
      const api = client(sut.url, { 'x-tenant-id': 'acme' });
      await api.post(`${A}/loan`, { ruleSet: rules('gold'), activateAfterSave: true });
      await api.post(`${A}/loan`, { ruleSet: rules('silver'), activateAfterSave: false });
      const started = await api.post('/api/v1/canary', {
        workflowName: 'loan',
        version: 2,
        targetTenantIds: ['acme'],
      });
      expect(started.status).toBe(201);
      const res = await api.post(`${EXECUTE}/loan`, { facts: { amount: 5000 } });
      expect(res.body).toMatchObject({
        mode: 'Hybrid',
        arm: 'canary',
        version: 2,
        outputs: { tier: 'silver' },
      });
    } finally {
      await sut.stop();
    }
  });

  it('Traditional and Hybrid (0 % rules) take the traditional path', async () => {
    const sut = await start({
      'RuleEngineOptions:ExecutionRouter:Mode': 'Hybrid',
      'RuleEngineOptions:ExecutionRouter:HybridRulesPercentage': 0,
    });
    try {
      const api = client(sut.url, { 'x-tenant-id': 'acme' });
      await api.post(`${A}/loan`, { ruleSet: rules('gold'), activateAfterSave: true });
      const res = await api.post(`${EXECUTE}/loan`, { facts: { amount: 5000 } });
      expect(res.body).toMatchObject({ arm: 'traditional', mode: 'Hybrid', version: null, outputs: {} });
    } finally {
      await sut.stop();
    }
  });
});
