import { controlPlaneService } from '@arbiter/control-plane';
import { decisionsService } from '@arbiter/decisions';
import { EventBus, InProcessEventBus } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http, loanRules } from './workflow-helpers';

jest.setTimeout(240_000);

describe('AI proposals for a workflow plan (control plane + decisions over the bus, a stub model)', () => {
  let cp: ServiceUnderTest;
  let decisions: ServiceUnderTest;
  let stub: Server;
  const asked: any[] = [];
  let answer = '';
  // one in-process bus for the two services (see workflow-gate.e2e-spec for why not a shared NATS)
  const shared: EventBus = new InProcessEventBus('/test/workflow-ai');

  beforeAll(async () => {
    // the test's own OpenAI-compatible chat stub
    stub = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        asked.push(JSON.parse(body));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: answer } }] }));
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const port = (stub.address() as AddressInfo).port;
    cp = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: { 'RuleControlPlane:RequireApproval': false },
    });
    decisions = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      sharedBus: shared,
      overrides: {
        'Scenarios:Ai:Endpoint': `http://127.0.0.1:${port}/v1`,
        'Scenarios:Ai:Model': 'stub-model',
      },
    });
  });
  afterAll(async () => {
    await decisions?.stop();
    await cp?.stop();
    await shared.close();
    await new Promise((resolve) => stub.close(resolve));
  });

  it("adds the proposals with the rule set's own expectation, through the same dedup, and runs them", async () => {
    const cpCall = http(cp.url, 'acme');
    const dCall = http(decisions.url, 'acme');
    expect(
      (await cpCall('POST', '/api/v1/control-plane/rulesets/loan', { ruleSet: loanRules() })).status,
    ).toBe(200);
    const plan = await dCall('POST', '/api/v1/scenarios/workflows/loan/plan', {});
    expect(plan.status).toBe(201);
    const existing = plan.body.scenarios[0].inputFacts;

    answer = JSON.stringify([
      {
        scenarioName: 'gold customer, large Dutch loan over the limit',
        inputFacts: { amount: 9000, country: 'NL', customer: { tier: 'gold', years: 1 }, limit: 100 },
      },
      { scenarioName: 'one the plan has', inputFacts: existing },
      { scenarioName: 'not facts', inputFacts: [1, 2] },
    ]);
    const res = await dCall('POST', `/api/v1/scenarios/plans/${plan.body.id}/ai-proposals`, { count: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      aiModelUsed: 'stub-model',
      proposed: 3,
      duplicates: 1,
      nearDuplicates: 0,
      rejected: 1,
    });
    expect(res.body.added).toHaveLength(1);
    expect(res.body.added[0]).toMatchObject({
      type: 'AiProposed',
      scope: 'Workflow',
      scenarioName: 'gold customer, large Dutch loan over the limit',
      expectedBehavior: {
        matchedRows: ['big', 'vip', 'over'],
        outputs: { review: true, fast: true, overLimit: true },
      },
    });
    // the model was shown the rule set version, not a table
    const prompt = asked[0].messages[1].content as string;
    expect(prompt).toMatch(/rule set/);
    expect(prompt).toContain('customer.tier = \\"gold\\"');

    // the proposal runs with the plan, and passes against the version it was proposed for
    const run = await dCall('POST', '/api/v1/scenarios/workflows/loan/runs', {});
    expect(run.status).toBe(201);
    expect(run.body.scenarios.failed).toBe(0);
    expect(run.body.scenarios.total).toBe(plan.body.scenarioCount + 1);
  });
});
