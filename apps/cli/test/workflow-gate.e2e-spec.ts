import { controlPlaneService } from '@arbiter/control-plane';
import { decisionsService } from '@arbiter/decisions';
import { EventBus, InProcessEventBus } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenariosGate } from '../src/commands/scenarios';
import { http, loanRules } from './workflow-helpers';

jest.setTimeout(240_000);

const onboarding = {
  type: 'flow-graph',
  schemaVersion: 1,
  start: 'adult',
  nodes: [
    {
      id: 'adult',
      kind: 'condition',
      config: { expression: 'applicant.age >= 18' },
      edges: [
        { kind: 'on-true', target: 'income' },
        { kind: 'on-false', target: 'deny' },
        { kind: 'on-error', target: 'fix' },
      ],
    },
    {
      id: 'income',
      kind: 'condition',
      config: { expression: 'applicant.income > applicant.rent * 3' },
      edges: [
        { kind: 'on-true', target: 'approve' },
        { kind: 'on-false', target: 'deny' },
      ],
    },
    {
      id: 'approve',
      kind: 'feel-expression',
      config: { expression: '"approved"', outputVariable: 'decision' },
    },
    { id: 'deny', kind: 'feel-expression', config: { expression: '"denied"', outputVariable: 'decision' } },
    {
      id: 'fix',
      kind: 'feel-expression',
      config: { expression: '"incomplete"', outputVariable: 'decision' },
    },
  ],
};

describe('Workflow scope and RuleControlPlane:RequireScenarioGate (control plane + decisions over the bus)', () => {
  let cp: ServiceUnderTest;
  let decisions: ServiceUnderTest;
  // One in-process bus for the two services, also when TEST_NATS_URL is set: on a NATS server shared with
  // other suites, their control planes would answer this decisions service's requests from other
  // databases. Request/reply over NATS itself is tested in libs/platform (request-reply.e2e-spec).
  const shared: EventBus = new InProcessEventBus('/test/scenario-gate');
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-wf-gate-'));
  let cpCall: ReturnType<typeof http>;
  let dCall: ReturnType<typeof http>;

  beforeAll(async () => {
    cp = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: { 'RuleControlPlane:RequireApproval': false, 'RuleControlPlane:RequireScenarioGate': true },
    });
    decisions = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      sharedBus: shared,
    });
    cpCall = http(cp.url, 'acme');
    dCall = http(decisions.url, 'acme');
  });
  afterAll(async () => {
    await decisions?.stop();
    await cp?.stop();
    await shared.close();
  });

  it('refuses to activate a version whose gate has not run (409), and a save that would activate, writing nothing', async () => {
    const saved = await cpCall('POST', '/api/v1/control-plane/rulesets/loan', { ruleSet: loanRules() });
    expect(saved.status).toBe(200);
    expect(saved.body.version).toBe(1);

    const refused = await cpCall('POST', '/api/v1/control-plane/rulesets/loan/1/activate');
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('SCENARIO_GATE_NOT_PASSED');
    expect(refused.body.error).toMatch(/scenario gate has not run/);

    const direct = await cpCall('POST', '/api/v1/control-plane/rulesets/loan', {
      ruleSet: loanRules(),
      activateAfterSave: true,
    });
    expect(direct.status).toBe(409);
    expect(direct.body.code).toBe('SCENARIO_GATE_NOT_PASSED');
    const versions = await cpCall('GET', '/api/v1/rule-engine/rulesets/loan/versions');
    expect(versions.body).toMatchObject({ totalVersions: 1, activeVersion: null });

    const status = await dCall('GET', '/api/v1/scenarios/workflows/loan/versions/1/gate');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ status: 'NotRun', runId: null });
  });

  it('gates the rule set through the CLI (rules both ways, input against input), then activation is allowed', async () => {
    let out = '';
    const junit = join(dir, 'loan.xml');
    const code = await runScenariosGate(
      {
        server: decisions.url,
        workflow: 'loan',
        tenant: 'acme',
        minCoverage: '100',
        minMutationScore: '90',
        junit,
      },
      (t) => (out += t),
    );
    expect(out).toMatch(/^PASSED: scenario gate of workflow 'loan' v1 \(plan from v1\)/);
    expect(code).toBe(0);
    expect(out).toMatch(/mutation score\s+\d+(\.\d+)? % \(\d+\/\d+\)/);
    expect(readFileSync(junit, 'utf8')).toMatch(/failures="0" errors="0"/);

    const plan = await dCall('GET', '/api/v1/scenarios/workflows/loan/plan');
    expect(plan.body).toMatchObject({ workflowName: 'loan', workflowVersion: 1, scope: 'Workflow' });
    const facts = plan.body.scenarios.map((s: { inputFacts: Record<string, number> }) => s.inputFacts);
    expect(facts.some((f: Record<string, number>) => f.amount === f.limit + 1)).toBe(true);

    const status = await dCall('GET', '/api/v1/scenarios/workflows/loan/versions/1/gate');
    expect(status.body).toMatchObject({ status: 'Passed', coverage: 100, failed: 0 });

    const activated = await cpCall('POST', '/api/v1/control-plane/rulesets/loan/1/activate');
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ version: 1, status: 'Active' });
  });

  it('fails the gate of a version that moves a boundary, names the rule, and its activation stays refused', async () => {
    const saved = await cpCall('POST', '/api/v1/control-plane/rulesets/loan', { ruleSet: loanRules('>') });
    expect(saved.body.version).toBe(2);
    let out = '';
    const code = await runScenariosGate(
      {
        server: decisions.url,
        workflow: 'loan',
        version: '2',
        tenant: 'acme',
        sarif: join(dir, 'loan.sarif'),
      },
      (t) => (out += t),
    );
    expect(code).toBe(1);
    expect(out).toMatch(/^FAILED: scenario gate of workflow 'loan' v2 \(plan from v1\)/);
    expect(out).toContain('big was expected to match and did not');
    const sarif = JSON.parse(readFileSync(join(dir, 'loan.sarif'), 'utf8'));
    expect(sarif.runs[0].results[0]).toMatchObject({ ruleId: 'scenario-failed', level: 'error' });

    const refused = await cpCall('POST', '/api/v1/control-plane/rulesets/loan/2/activate');
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/scenario gate failed \(run [0-9a-f-]{36}: coverage/);
    // the version 1 verdict still stands
    const one = await dCall('GET', '/api/v1/scenarios/workflows/loan/versions/1/gate');
    expect(one.body.status).toBe('Passed');
  });

  it('covers every node and edge of a flow, on-false and on-error included', async () => {
    await cpCall('POST', '/api/v1/control-plane/rulesets/onboarding', { ruleSet: onboarding });
    const gate = await dCall('POST', '/api/v1/scenarios/workflows/onboarding/gate', { minCoverage: 100 });
    expect(gate.status).toBe(200);
    expect(gate.body).toMatchObject({
      passed: true,
      kind: 'Gate',
      workflowVersion: 1,
      coverage: { percent: 100, nodes: { total: 5, hit: 5 }, edges: { total: 5, hit: 5 } },
    });
    const run = await dCall('GET', `/api/v1/scenarios/runs/${gate.body.runId}`);
    expect(run.status).toBe(200);
  });

  it('keeps tenants apart and answers bad input with the family error', async () => {
    const other = http(decisions.url, 'other');
    const missing = await other('POST', '/api/v1/scenarios/workflows/loan/plan', {});
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('WORKFLOW_NOT_FOUND');
    expect((await other('GET', '/api/v1/scenarios/workflows/loan/versions/1/gate')).body.status).toBe(
      'NotRun',
    );
    expect((await other('GET', '/api/v1/scenarios/workflows/loan/plan')).status).toBe(404);

    const badName = await dCall('POST', '/api/v1/scenarios/workflows/bad%20name!/plan', {});
    expect(badName.status).toBe(400);
    expect(badName.body.code).toBe('INVALID_WORKFLOW_NAME');
    const badVersion = await dCall('GET', '/api/v1/scenarios/workflows/loan/versions/x/gate');
    expect(badVersion.status).toBe(400);
    const noVersion = await dCall('POST', '/api/v1/scenarios/workflows/loan/runs', { version: 99 });
    expect(noVersion.status).toBe(404);
    // a workflow plan is not a table plan
    const plan = await dCall('GET', '/api/v1/scenarios/workflows/loan/plan');
    const tableRun = await dCall('POST', `/api/v1/scenarios/plans/${plan.body.id}/runs`, {});
    expect(tableRun.status).toBe(422);
    expect(tableRun.body.code).toBe('NOT_A_TABLE_PLAN');
  });

  it('says when nobody can tell whether the gate passed (503), rather than activating', async () => {
    // a control plane on a bus of its own: no decisions service answers it
    const alone = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: new InProcessEventBus('/test/alone'),
      overrides: {
        'RuleControlPlane:RequireApproval': false,
        'RuleControlPlane:RequireScenarioGate': true,
        'RuleControlPlane:ScenarioGateTimeoutMs': 500,
      },
    });
    try {
      const call = http(alone.url, 'acme');
      await call('POST', '/api/v1/control-plane/rulesets/solo', { ruleSet: loanRules() });
      const refused = await call('POST', '/api/v1/control-plane/rulesets/solo/1/activate');
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('SCENARIO_GATE_UNAVAILABLE');
    } finally {
      await alone.stop();
    }
  });
});

describe('RuleControlPlane:RequireScenarioGate with maker-checker: the approver waits for a passing gate', () => {
  let cp: ServiceUnderTest;
  let decisions: ServiceUnderTest;
  const shared: EventBus = new InProcessEventBus('/test/scenario-gate-approval');
  beforeAll(async () => {
    cp = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: { 'RuleControlPlane:RequireApproval': true, 'RuleControlPlane:RequireScenarioGate': true },
    });
    decisions = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      sharedBus: shared,
    });
  });
  afterAll(async () => {
    await decisions?.stop();
    await cp?.stop();
    await shared.close();
  });

  it('refuses the approval until the version gate passed, then approve and activate go through', async () => {
    const maker = http(cp.url, 'acme');
    const approver = async (path: string, body: unknown) => {
      const res = await fetch(`${cp.url}${path}`, {
        method: 'POST',
        headers: { 'x-tenant-id': 'acme', 'x-actor': 'bob', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { code?: string } };
    };
    await maker('POST', '/api/v1/control-plane/rulesets/pricing', { ruleSet: loanRules() });
    expect(
      (await maker('POST', '/api/v1/control-plane/rulesets/pricing/1/submit', { detail: 'please review' }))
        .status,
    ).toBe(200);
    const early = await approver('/api/v1/control-plane/rulesets/pricing/1/approve', {
      detail: 'looks right',
    });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('SCENARIO_GATE_NOT_PASSED');
    // still awaiting approval: the refusal changed nothing
    const pending = await maker('GET', '/api/v1/rule-engine/rulesets/pricing/versions/1');
    expect(pending.body.status).toBe('PendingApproval');

    const gate = await http(decisions.url, 'acme')('POST', '/api/v1/scenarios/workflows/pricing/gate', {
      version: 1,
    });
    expect(gate.body.passed).toBe(true);
    const approved = await approver('/api/v1/control-plane/rulesets/pricing/1/approve', {
      detail: 'looks right',
    });
    expect(approved.status).toBe(200);
    expect((await approver('/api/v1/control-plane/rulesets/pricing/1/activate', {})).status).toBe(200);
  });
});
