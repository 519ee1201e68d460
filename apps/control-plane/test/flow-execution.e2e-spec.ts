import { decisionsService } from '@arbiter/decisions';
import { EventBus, InProcessEventBus, NatsEventBus } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { hashApiKey } from '@arbiter/auth';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { controlPlaneService } from '../src';
import { BatchedExecutionAuditSink } from '../src/execution-audit/batched-execution-audit.sink';
import { A, B, client } from './helpers';

const EXECUTE = '/api/v1/rule-engine/execute';
const ACME_KEY = 'acme-tables-key';
const SERVICE_KEY = 'control-plane-service-key';
const TABLES = '/api/v1/decision-tables';

/** A connector endpoint: records every call and answers `{ mailStatus: 'queued', to }`. */
function connectorServer() {
  const calls: { headers: IncomingMessage['headers']; body: any }[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw);
      calls.push({ headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ mailStatus: 'queued', to: body.input.to }));
    });
  });
  return {
    calls,
    server,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const pricingTable = (premium: number) => ({
  name: 'pricing',
  hitPolicy: 'First',
  inputColumns: [{ name: 'segment', type: 'string', required: true }],
  outputColumns: [{ name: 'price', type: 'number' }],
  rows: [
    { id: 'p1', inputConditions: { segment: '"premium"' }, outputs: { price: premium } },
    { id: 'p2', inputConditions: { segment: '-' }, outputs: { price: 10 } },
  ],
});

/** The main flow: FEEL condition → sub flow → stored table → JavaScript condition → template → connector. */
const offerFlow = {
  type: 'flow-graph',
  schemaVersion: 1,
  start: 'adult',
  nodes: [
    {
      id: 'adult',
      kind: 'condition',
      config: { expression: 'applicant.age >= 18' },
      edges: [
        { kind: 'on-true', target: 'segment' },
        { kind: 'on-false', target: 'refuse' },
      ],
    },
    {
      id: 'segment',
      kind: 'sub-flow',
      config: { workflowName: 'segmentation', inputMapping: { income: 'applicant.income' } },
      edges: [{ kind: 'next', target: 'price' }],
    },
    {
      id: 'price',
      kind: 'decision-table',
      config: { tableRef: { name: 'pricing' } },
      edges: [{ kind: 'next', target: 'vip' }],
    },
    {
      id: 'vip',
      kind: 'javascript-condition',
      config: { script: 'return facts.price > 50 && input.applicant.name.length > 0;' },
      edges: [
        { kind: 'on-true', target: 'letter' },
        { kind: 'on-false', target: 'letter' },
      ],
    },
    {
      id: 'letter',
      kind: 'template',
      config: { template: 'Dear {{ applicant.name }}, your price is {{ price }}.', outputVariable: 'letter' },
      edges: [{ kind: 'next', target: 'mail' }],
    },
    {
      id: 'mail',
      kind: 'connector',
      config: { connector: 'mailer', operation: 'send', inputMapping: { to: 'applicant.email' } },
    },
    {
      id: 'refuse',
      kind: 'feel-expression',
      config: { expression: '"too young"', outputVariable: 'refusal' },
    },
  ],
};

const segmentationFlow = {
  type: 'flow-graph',
  schemaVersion: 1,
  nodes: [
    {
      id: 'segment',
      kind: 'feel-expression',
      config: { expression: 'if income > 50000 then "premium" else "standard"', outputVariable: 'segment' },
    },
  ],
};

describe('flow-graph execution across services (control plane + decisions, shared bus)', () => {
  let decisions: ServiceUnderTest;
  let controlPlane: ServiceUnderTest;
  const mailer = connectorServer();
  const shared = process.env.TEST_NATS_URL?.trim() ? undefined : new InProcessEventBus('/arbiter/test-flow');
  let api: ReturnType<typeof client>;
  let tables: ReturnType<typeof client>;
  let pricingId: string;

  const applicant = (over: Record<string, unknown> = {}) => ({
    applicant: { age: 30, income: 80000, name: 'Ada', email: 'ada@example.com', ...over },
  });

  beforeAll(async () => {
    const mailerUrl = await mailer.listen();
    // The decisions service requires credentials: the test's own calls use acme's key, the control plane
    // a service key (`Authentication:ApiKeys:*`) that acts for the tenant each request names.
    decisions = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      sharedBus: shared,
      overrides: {
        'Authentication:ApiKeys:acme': hashApiKey(ACME_KEY),
        'Authentication:ApiKeys:*': hashApiKey(SERVICE_KEY),
      },
    });
    controlPlane = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      sharedBus: shared,
      overrides: {
        'RuleControlPlane:RequireApproval': false,
        'RuleEngineOptions:DecisionTablesUrl': decisions.url,
        'RuleEngineOptions:DecisionTablesApiKey': SERVICE_KEY,
        'RuleEngineOptions:Connectors:mailer': mailerUrl,
      },
    });
    for (const sut of [decisions, controlPlane]) {
      const bus = sut.service.app.get(EventBus);
      if (bus instanceof NatsEventBus) expect(await bus.whenConnected(10_000)).toBe(true);
    }
    if (!shared) await new Promise((r) => setTimeout(r, 500)); // NATS subscriptions settle
    api = client(controlPlane.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    // an API key acts as itself: an X-Actor naming someone else would be 403 ACTOR_MISMATCH
    tables = client(`${decisions.url}${TABLES}`, { 'x-tenant-id': 'acme', 'x-api-key': ACME_KEY });
    const created = await tables.post('', pricingTable(99));
    expect(created.status).toBe(201);
    pricingId = created.body.id;
    for (const [workflow, ruleSet] of [
      ['segmentation', segmentationFlow],
      ['offer', offerFlow],
    ] as const) {
      const saved = await api.post(`${A}/${workflow}`, { ruleSet, activateAfterSave: true });
      expect(saved.status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await controlPlane?.stop();
    await decisions?.stop();
    await mailer.close();
  });

  it('runs every node kind on the taken path, calls the connector once, and traces each node', async () => {
    const res = await api.post(`${EXECUTE}/offer`, {
      facts: applicant(),
      trace: true,
      correlationId: 'flow-1',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      workflowName: 'offer',
      version: 1,
      status: 'success',
      errors: [],
      outputs: {
        segment: 'premium',
        price: 99,
        letter: 'Dear Ada, your price is 99.',
        mailStatus: 'queued',
        to: 'ada@example.com',
      },
      rulesMatched: ['adult', 'segment', 'price', 'vip', 'letter', 'mail'],
    });
    expect(res.body.traces.map((t: any) => [t.ruleName, t.kind, t.matched])).toEqual([
      ['adult', 'condition', true],
      ['segment', 'sub-flow', true],
      ['price', 'decision-table', true],
      ['vip', 'javascript-condition', true],
      ['letter', 'template', true],
      ['mail', 'connector', true],
    ]);
    for (const trace of res.body.traces) expect(trace.durationMs).toEqual(expect.any(Number));
    expect(mailer.calls).toHaveLength(1);
    expect(mailer.calls[0].body).toEqual({
      connector: 'mailer',
      operation: 'send',
      input: { to: 'ada@example.com' },
      tenantId: 'acme',
      correlationId: 'flow-1',
    });
    expect(mailer.calls[0].headers['x-tenant-id']).toBe('acme');

    const young = await api.post(`${EXECUTE}/offer`, { facts: applicant({ age: 12 }) });
    expect(young.body.outputs).toEqual({ refusal: 'too young' });
    expect(mailer.calls).toHaveLength(1);

    await controlPlane.service.app.get(BatchedExecutionAuditSink).flush();
    const audit = await api.get(`/api/v1/audit/workflow/offer?pageSize=10`);
    expect(audit.body.items.find((i: any) => i.correlationId === 'flow-1')).toMatchObject({
      version: 1,
      rulesMatched: ['adult', 'segment', 'price', 'vip', 'letter', 'mail'],
    });
  });

  it('never calls the connector on a dry-run, on either route family', async () => {
    const before = mailer.calls.length;
    const shapeB = await api.post(`${A}/offer/dry-run`, { inputs: applicant() });
    expect(shapeB.status).toBe(200);
    expect(shapeB.body).toMatchObject({ status: 'success', sideEffectsApplied: false });
    expect(shapeB.body.outputs).toMatchObject({ price: 99, letter: 'Dear Ada, your price is 99.' });
    expect(shapeB.body.outputs.mailStatus).toBeUndefined();
    const shapeA = await api.post(`${B}/rulesets/offer/dry-run`, { inputs: applicant() });
    expect(shapeA.body.traces.find((t: any) => t.ruleName === 'mail')).toMatchObject({ matched: false });
    expect(mailer.calls.length).toBe(before);
  });

  it('serves a changed stored table after arbiter.decision-table.changed, without a restart', async () => {
    const updated = await tables.call('PUT', `/${pricingId}`, {
      ...pricingTable(120),
      comment: 'price rise',
    });
    expect(updated.status).toBe(200);
    let price: unknown;
    for (let i = 0; i < 100 && price !== 120; i++) {
      price = (await api.post(`${EXECUTE}/offer`, { facts: applicant({ email: 'x@y.z' }) })).body.outputs
        .price;
      if (price !== 120) await new Promise((r) => setTimeout(r, 20));
    }
    expect(price).toBe(120);
  });

  it('fails a runaway JavaScript condition in its trace, and keeps serving', async () => {
    const hostile = {
      type: 'flow-graph',
      schemaVersion: 1,
      nodes: [
        {
          id: 'spin',
          kind: 'javascript-condition',
          config: { script: 'if (input.calm) return true; while (true) {}', timeoutMs: 50 },
          edges: [
            { kind: 'on-true', target: 'ok' },
            { kind: 'on-error', target: 'fallback' },
          ],
        },
        { id: 'ok', kind: 'feel-expression', config: { expression: '"ok"', outputVariable: 'state' } },
        {
          id: 'fallback',
          kind: 'feel-expression',
          config: { expression: '"fallback"', outputVariable: 'state' },
        },
      ],
    };
    expect((await api.post(`${A}/hostile`, { ruleSet: hostile, activateAfterSave: true })).status).toBe(200);
    const started = Date.now();
    const spun = await api.post(`${EXECUTE}/hostile`, { facts: {}, trace: true });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(spun.status).toBe(200);
    expect(spun.body.outputs).toEqual({ state: 'fallback' });
    expect(spun.body.traces[0]).toMatchObject({ ruleName: 'spin', matched: false });
    expect(spun.body.traces[0].failReason).toMatch(/longer than 50 ms/);
    const calm = await api.post(`${EXECUTE}/hostile`, { facts: { calm: true } });
    expect(calm.body.outputs).toEqual({ state: 'ok' });
    expect((await api.post(`${EXECUTE}/offer`, { facts: applicant({ age: 5 }) })).body.outputs).toEqual({
      refusal: 'too young',
    });
  });

  it('reads stored tables only with credentials: the decisions service refuses an anonymous read', async () => {
    const anonymous = await fetch(`${decisions.url}${TABLES}/by-name/pricing`, {
      headers: { 'x-tenant-id': 'acme' },
    });
    expect(anonymous.status).toBe(401);
    const asService = await fetch(`${decisions.url}${TABLES}/by-name/pricing`, {
      headers: { 'x-tenant-id': 'acme', 'x-api-key': SERVICE_KEY },
    });
    expect(asService.status).toBe(200);
    // a tenant key cannot read another tenant's table by naming it in the header
    const crossTenant = await fetch(`${decisions.url}${TABLES}/by-name/pricing`, {
      headers: { 'x-tenant-id': 'globex', 'x-api-key': ACME_KEY },
    });
    expect(crossTenant.status).toBe(200);
    expect(((await crossTenant.json()) as any).tenantId).toBe('acme');
  });

  it('serves the contract of a stored decision table (rule-contracts/decision-table/{name})', async () => {
    const contract = await api.get(`${B}/rule-contracts/decision-table/pricing`);
    expect(contract.status).toBe(200);
    expect(contract.body).toMatchObject({
      sourceType: 'decision-table',
      sourceCode: 'pricing',
      resolvedFrom: 'stored-table',
      request: { contractName: 'pricing.input', fields: [{ path: 'segment', dataType: 'string' }] },
      response: { contractName: 'pricing.output', fields: [{ path: 'price', dataType: 'number' }] },
    });
    const unknown = await api.get(`${B}/rule-contracts/decision-table/nothing-like-it`);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'DECISION_TABLE_NOT_FOUND']);
  });

  it('answers 422 with a code for a flow whose stored table does not exist', async () => {
    const broken = {
      type: 'flow-graph',
      schemaVersion: 1,
      nodes: [{ id: 't', kind: 'decision-table', config: { tableRef: { name: 'no-such-table' } } }],
    };
    expect((await api.post(`${A}/broken`, { ruleSet: broken, activateAfterSave: true })).status).toBe(200);
    const res = await api.post(`${EXECUTE}/broken`, { facts: {} });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'DECISION_TABLE_NOT_FOUND', traceId: expect.any(String) });
  });
});
