import { ServiceUnderTest, startServiceForTest, writeLicenseProof } from '@arbiter/testing';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decisionsService } from '../src';
import { client } from './helpers';

/** A table with numeric boundaries, listed strings and a date: the spec's loan example. */
const loanTable = (name = 'Loan scenarios') => ({
  name,
  hitPolicy: 'First',
  inputColumns: [
    { name: 'amount', type: 'number' },
    { name: 'risk', type: 'string' },
    { name: 'since', type: 'date' },
  ],
  outputColumns: [{ name: 'decision', type: 'string' }],
  rows: [
    { id: 'r1', inputConditions: { amount: '>= 5000', risk: '"high"' }, outputs: { decision: 'reject' } },
    {
      id: 'r2',
      inputConditions: { amount: '[1000..5000)', risk: '"low","medium"', since: '< date("2020-01-01")' },
      outputs: { decision: 'approve' },
    },
    { id: 'r3', inputConditions: { amount: '< 1000' }, outputs: { decision: 'fast-track' } },
  ],
});

function scenariosApi(base: string, tenant = 'tenant-a') {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1/scenarios${path}`, {
      method,
      headers: {
        'x-tenant-id': tenant,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    get: (p: string) => call('GET', p),
    post: (p: string, b: unknown = {}) => call('POST', p, b),
    put: (p: string, b: unknown) => call('PUT', p, b),
  };
}

// the machine running the suites is shared: starting a service on PGlite can take long
jest.setTimeout(180_000);

describe('scenarios API', () => {
  let sut: ServiceUnderTest;
  let tables: ReturnType<typeof client>;
  let api: ReturnType<typeof scenariosApi>;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    tables = client(sut.url);
    api = scenariosApi(sut.url);
  });
  afterAll(() => sut?.stop());

  it('generates a plan, runs it, finds the moved boundary, keeps confirmed expectations and gates', async () => {
    const tableId = (await tables.post('', loanTable())).body.id;
    const generated = await api.post('/plans', { tableId, seed: 7 });
    expect(generated.status).toBe(201);
    const plan = generated.body;
    expect(plan).toMatchObject({
      tableId,
      tableVersion: 1,
      seedRuleCode: 'Loan scenarios',
      scope: 'Rule',
      seed: 7,
      aiModelUsed: null,
    });
    expect(plan.scenarioCount).toBeGreaterThan(20);
    expect(plan.duplicatesRemoved).toBeGreaterThan(0);
    const all = (await api.get(`/plans/${plan.id}/scenarios?pageSize=200`)).body;
    expect(all).toHaveLength(plan.scenarioCount);
    const amounts = all.filter((s: any) => s.origin.rowId === 'r1').map((s: any) => s.inputFacts.amount);
    expect(amounts).toEqual(expect.arrayContaining([4999, 5000, 5001]));
    expect(new Set(all.map((s: any) => s.type))).toEqual(
      new Set(['RowMatch', 'Boundary', 'McDc', 'EquivalenceClass', 'MissingInput', 'NullInput', 'Pairwise']),
    );
    expect(all.every((s: any) => s.status === 'Pending' && !s.confirmed)).toBe(true);
    const mcdc = (await api.get(`/plans/${plan.id}/scenarios?type=McDc`)).body;
    expect(mcdc.length).toBeGreaterThan(0);
    expect(mcdc.every((s: any) => s.type === 'McDc')).toBe(true);

    // the same seed gives the same scenarios
    const again = (await api.post('/plans', { tableId, seed: 7 })).body;
    expect(again.id).toBe(plan.id);
    const allAgain = (await api.get(`/plans/${plan.id}/scenarios?pageSize=200`)).body;
    expect(allAgain.map((s: any) => s.inputHash)).toEqual(all.map((s: any) => s.inputHash));

    // the table as written passes every scenario, all rows hit
    const run = await api.post(`/plans/${plan.id}/runs`);
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({
      kind: 'Run',
      tableVersion: 1,
      total: plan.scenarioCount,
      failed: 0,
      errored: 0,
    });
    expect(run.body.coverage.rows).toMatchObject({ total: 3, hit: 3, percent: 100 });
    expect(run.body.coverage.conditions.percent).toBe(100);
    const results = (await api.get(`/runs/${run.body.id}/results?pageSize=5`)).body;
    expect(results).toHaveLength(5);
    expect(results[0]).toMatchObject({
      status: 'Passed',
      isSuccess: true,
      matchesExpectation: true,
      duration: expect.any(Number),
    });

    // a person confirms an expectation: regeneration keeps it
    // (regenerating gave the unconfirmed scenarios new ids)
    const target = allAgain.find((s: any) => s.type === 'RowMatch' && s.origin.rowId === 'r3');
    const edited = await api.put(`/${target.id}/expectation`, {
      matchedRows: ['r3'],
      outputs: { decision: 'fast-track' },
      description: 'agreed with underwriting',
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      confirmed: true,
      confirmedBy: expect.any(String),
      status: 'Pending',
    });
    expect(edited.body.expectedBehavior.description).toBe('agreed with underwriting');
    const regenerated = (await api.post('/plans', { tableId, seed: 99 })).body;
    expect(regenerated.confirmedKept).toBe(1);
    const kept = await api.get(`/${target.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({
      confirmed: true,
      expectedBehavior: { description: 'agreed with underwriting' },
    });
    await api.post('/plans', { tableId, seed: 7 });

    // version 2 moves r1's boundary by one: the scenario on 5000 fails and the analysis names it
    const v2 = loanTable();
    v2.rows[0].inputConditions.amount = '>= 5001';
    expect((await tables.put(`/${tableId}`, v2)).status).toBe(200);
    const failing = (await api.post(`/plans/${plan.id}/runs`, {})).body;
    expect(failing.tableVersion).toBe(2);
    expect(failing.failed).toBeGreaterThan(0);
    const onBoundary = failing.failures.find(
      (f: any) => f.inputFacts.amount === 5000 && f.expected.matchedRows[0] === 'r1',
    );
    expect(onBoundary.analysis).toContainEqual(
      expect.objectContaining({ rowId: 'r1', column: 'amount', value: 5000, cell: '>= 5001' }),
    );
    const failedOne = await api.get(`/${onBoundary.scenarioId}`);
    expect(failedOne.body).toMatchObject({
      status: 'Failed',
      lastResult: { status: 'Failed', matchesExpectation: false },
    });

    // the gate against version 2 fails; against version 1 it passes with its mutation score
    const red = await api.post('/gate', { tableId, minCoverage: 90 });
    expect(red.status).toBe(200);
    expect(red.body).toMatchObject({ passed: false, tableVersion: 2, planVersion: 1 });
    expect(red.body.reasons[0]).toMatch(/scenario\(s\) failed/);
    const green = await api.post('/gate', { tableId, version: 1, minCoverage: 90, minMutationScore: 90 });
    expect(green.body).toMatchObject({
      passed: true,
      reasons: [],
      tableVersion: 1,
      scenarios: { failed: 0, errored: 0 },
    });
    expect(green.body.coverage.rows.percent).toBe(100);
    expect(green.body.mutation.mutants).toBeGreaterThan(10);
    expect(green.body.mutation.score).toBeGreaterThanOrEqual(90);
    const gateRun = (await api.get(`/runs/${green.body.runId}`)).body;
    expect(gateRun).toMatchObject({ kind: 'Gate', gate: { passed: true, minCoverage: 90 } });

    const stats = (await api.get('/statistics')).body;
    expect(stats).toMatchObject({ plans: 1, gateRuns: 2, gatesPassed: 1, confirmed: 1 });
    expect(stats.scenarios).toBe(plan.scenarioCount);
    expect(stats.coverage.plansMeasured).toBe(1);
  });

  it('a table without a plan gets one at its first gate; a gate below the threshold fails', async () => {
    const tableId = (await tables.post('', loanTable('Gate only'))).body.id;
    const gate = await api.post('/gate', { tableId, minCoverage: 100, mutation: false });
    expect(gate.body).toMatchObject({ passed: true, mutation: null, coverage: { rows: { percent: 100 } } });
    // a row no input can reach (shadowed under First) keeps coverage below 100 %
    const shadowed = loanTable('Shadowed');
    shadowed.rows.push({ id: 'r4', inputConditions: { amount: '< 500' }, outputs: { decision: 'never' } });
    const id2 = (await tables.post('', shadowed)).body.id;
    const below = (await api.post('/gate', { tableId: id2, minCoverage: 90, mutation: false })).body;
    expect(below.passed).toBe(false);
    expect(below.coverage.rows.unhit).toEqual(['r4']);
    expect(below.reasons).toContain('row coverage 75 % is below 90 %');
  });

  it('refuses what it cannot do, with a code naming the problem', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await api.get(`/plans/${missing}`)).body.code).toBe('SCENARIO_PLAN_NOT_FOUND');
    expect((await api.get('/plans/not-a-uuid')).status).toBe(404);
    expect((await api.get(`/${missing}`)).body.code).toBe('SCENARIO_NOT_FOUND');
    expect((await api.get(`/runs/${missing}`)).body.code).toBe('SCENARIO_RUN_NOT_FOUND');
    expect((await api.post('/plans', { tableId: missing })).body.code).toBe('TABLE_NOT_FOUND');
    expect((await api.post('/gate', { tableId: missing })).status).toBe(404);
    const bad = await api.post('/gate', { tableId: missing, minCoverage: 150 });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect((await api.post('/plans', {})).status).toBe(400);

    const tableId = (await tables.post('', loanTable('Hostile'))).body.id;
    const plan = (await api.post('/plans', { tableId })).body;
    expect((await api.get(`/plans/${plan.id}/scenarios?type=Nonsense`)).status).toBe(400);
    const s = plan.scenarios[0];
    const unknownRow = await api.put(`/${s.id}/expectation`, { matchedRows: ['r99'], outputs: null });
    expect(unknownRow.status).toBe(400);
    expect(unknownRow.body.code).toBe('UNKNOWN_ROW');
    expect((await api.put(`/${s.id}/expectation`, { matchedRows: 'r1', outputs: null })).status).toBe(400);

    // no AI model configured: the route says so and makes nothing up
    const ai = await api.post(`/plans/${plan.id}/ai-proposals`, { count: 5 });
    expect(ai.status).toBe(503);
    expect(ai.body.code).toBe('AI_MODEL_NOT_CONFIGURED');

    // another tenant sees nothing of it
    const other = scenariosApi(sut.url, 'tenant-b');
    expect((await other.get(`/plans/${plan.id}`)).status).toBe(404);
    expect((await other.get(`/${s.id}`)).status).toBe(404);
    expect((await other.get('/plans')).body).toEqual([]);
  });
});

describe('scenarios API with an AI model endpoint', () => {
  let sut: ServiceUnderTest;
  let stub: Server;
  const requests: any[] = [];
  let answer = '';
  beforeAll(async () => {
    stub = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        requests.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body) });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: answer } }] }));
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const port = (stub.address() as AddressInfo).port;
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: {
        'Scenarios:Ai:Endpoint': `http://127.0.0.1:${port}/v1`,
        'Scenarios:Ai:Model': 'stub-model',
        'Scenarios:Ai:ApiKey': 'k-123',
      },
    });
  });
  afterAll(async () => {
    await sut?.stop();
    await new Promise((resolve) => stub.close(resolve));
  });

  it('adds the proposals through the same dedup and expectation, and refuses an answer that is not scenarios', async () => {
    const tables = client(sut.url);
    const api = scenariosApi(sut.url);
    const tableId = (await tables.post('', loanTable())).body.id;
    const plan = (await api.post('/plans', { tableId })).body;
    const existing = plan.scenarios[0].inputFacts;
    answer =
      '```json\n' +
      JSON.stringify([
        {
          scenarioName: 'huge loan, low risk',
          inputFacts: { amount: 1e9, risk: 'low', since: '2010-01-01' },
        },
        { scenarioName: 'already there', inputFacts: existing },
        'not a scenario',
      ]) +
      '\n```';
    const res = await api.post(`/plans/${plan.id}/ai-proposals`, { count: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ aiModelUsed: 'stub-model', proposed: 3, duplicates: 1, rejected: 1 });
    expect(res.body.added).toHaveLength(1);
    expect(res.body.added[0]).toMatchObject({
      type: 'AiProposed',
      scenarioName: 'huge loan, low risk',
      expectedBehavior: { matchedRows: [], outputs: null },
    });
    expect(requests[0]).toMatchObject({
      url: '/v1/chat/completions',
      auth: 'Bearer k-123',
      body: { model: 'stub-model' },
    });
    expect(requests[0].body.messages[1].content).toContain('Loan scenarios');
    expect((await api.get(`/plans/${plan.id}`)).body.aiModelUsed).toBe('stub-model');

    answer = 'I cannot help with that';
    const refused = await api.post(`/plans/${plan.id}/ai-proposals`, {});
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('AI_MODEL_FAILED');
  });
});

describe('near duplicates through the configured embeddings endpoint, and the AI license gate', () => {
  let sut: ServiceUnderTest;
  let stub: Server;
  const embedded: string[][] = [];
  let embeddingsUp = true;
  let answer = '';
  beforeAll(async () => {
    // the test's own OpenAI-compatible stub: every text embeds to one of two vectors, by its risk
    stub = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const request = JSON.parse(body);
        res.setHeader('content-type', 'application/json');
        if (req.url === '/v1/embeddings') {
          if (!embeddingsUp) {
            res.statusCode = 500;
            res.end('{"error":"down"}');
            return;
          }
          embedded.push(request.input);
          res.end(
            JSON.stringify({
              data: request.input.map((text: string, index: number) => ({
                index,
                embedding: text.includes('"risk":"high"') ? [1, 0, 0] : [0, 3, 4],
              })),
            }),
          );
          return;
        }
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: answer } }] }));
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const port = (stub.address() as AddressInfo).port;
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: {
        'Scenarios:SimilarityThreshold': 0.99,
        'Scenarios:EmbeddingBaseUrl': `http://127.0.0.1:${port}/v1`,
        'Scenarios:EmbeddingModel': 'stub-embed',
        'Scenarios:Ai:Endpoint': `http://127.0.0.1:${port}/v1`,
        'Scenarios:Ai:Model': 'stub-model',
      },
    });
  });
  afterAll(async () => {
    await sut?.stop();
    await new Promise((resolve) => stub.close(resolve));
  });

  it("removes near-duplicate combinations by the model's vectors and says which embedding answered", async () => {
    const tables = client(sut.url);
    const api = scenariosApi(sut.url);
    const tableId = (await tables.post('', loanTable('Near duplicates'))).body.id;
    const plan = await api.post('/plans', { tableId });
    expect(plan.status).toBe(201);
    // two vectors in all: one pairwise combination of each kind survives
    expect(plan.body).toMatchObject({ embeddingModelUsed: 'openai:stub-embed' });
    expect(plan.body.nearDuplicatesRemoved).toBeGreaterThan(0);
    const all = (await api.get(`/plans/${plan.body.id}/scenarios?pageSize=200`)).body;
    const pairwise = all.filter((s: any) => s.type === 'Pairwise');
    expect(pairwise.length).toBeLessThanOrEqual(2);
    // boundary scenarios are near each other on purpose: none was dropped (both sides of >= 5000 remain)
    const amounts = new Set(all.map((s: any) => s.inputFacts.amount));
    for (const a of [4999, 5000]) expect([...amounts].some((x: any) => Math.abs(x - a) <= 1)).toBe(true);
    // the embeddings were asked with the canonical JSON of the facts
    expect(embedded.flat().every((t) => t.startsWith('{') && JSON.parse(t))).toBe(true);

    // AI proposals go through the same pass: a proposal like a kept scenario is a near duplicate
    answer = JSON.stringify([
      { scenarioName: 'high risk again', inputFacts: { amount: 77_777, risk: 'high', since: '2001-02-03' } },
    ]);
    const proposed = await api.post(`/plans/${plan.body.id}/ai-proposals`, { count: 1 });
    expect(proposed.status).toBe(201);
    expect(proposed.body).toMatchObject({ proposed: 1, duplicates: 0, nearDuplicates: 1, added: [] });

    // a configured endpoint that fails is named, and nothing is replaced
    embeddingsUp = false;
    const failed = await api.post('/plans', { tableId });
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('EMBEDDING_MODEL_FAILED');
    embeddingsUp = true;
    const after = (await api.get(`/plans/${plan.body.id}`)).body;
    expect(after.scenarioCount).toBe(plan.body.scenarioCount);
  });

  it('refuses to start with an embeddings endpoint but no model', async () => {
    await expect(
      startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
        overrides: { 'Scenarios:EmbeddingBaseUrl': 'http://127.0.0.1:9/v1' },
      }),
    ).rejects.toThrow(/Scenarios:EmbeddingModel/);
  });
});

describe('AI proposals under an enforced license', () => {
  it('need the scenarios.ai capability (403 LICENSE_FEATURE_REQUIRED without it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-scenarios-license-'));
    const sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: {
        'License:EnforceOnMiddleware': true,
        'License:FilePath': writeLicenseProof({
          dir,
          features: ['api.validate'],
          machineFingerprint: 'decisions-1',
        }),
      },
    });
    try {
      const api = scenariosApi(sut.url);
      const tableId = (await client(sut.url).post('', loanTable('Licensed'))).body.id;
      const plan = (await api.post('/plans', { tableId })).body;
      expect(plan.embeddingModelUsed).toBeNull();
      const refused = await api.post(`/plans/${plan.id}/ai-proposals`, { count: 1 });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('LICENSE_FEATURE_REQUIRED');
    } finally {
      await sut.stop();
    }
  });
});
