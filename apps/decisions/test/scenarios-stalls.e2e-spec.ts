/**
 * Issue 28: the scenario plan of a 1,000-row table is generated, run, and gated with its mutation run
 * without holding the service: `/health/live` keeps answering meanwhile. The generator, the runner and the
 * mutation run work on a scenario worker thread (`Scenarios:Workers`); the service reads the table,
 * writes the scenarios and results (`jsonb_to_recordset`, rows as JSON text written in slices) and parses
 * the worker's answer in slices of its loop. Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { bigTable } from '@arbiter/scenarios/fixtures';
import {
  LivenessBudget,
  ServiceUnderTest,
  startServiceForTest,
  whileProbingLiveness,
} from '@arbiter/testing';
import { decisionsService } from '../src';
import { client } from './helpers';

/**
 * The longest a probe may wait beyond the idle floor of this run (the worst wait of the same probe over
 * 2 s with nothing running, measured first, and once more right after a request that went over it):
 * the 100 ms. The floor takes out what a shared, loaded machine adds to every probe; a request
 * holding the loop for 100 ms or more still fails (`LivenessBudget`).
 */
const PROBE_MS = Number(process.env.LIVENESS_PROBE_MS ?? 100);
const ROWS = 1000;

describe('scenario plans of a 1,000-row table do not stall the service', () => {
  let sut: ServiceUnderTest;
  let budget: LivenessBudget;
  const scenarios = (base: string) => {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/api/v1/scenarios${path}`, {
        method,
        headers: {
          'x-tenant-id': 'tenant-a',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    return {
      get: (path: string) => call('GET', path),
      post: (path: string, body: unknown) => call('POST', path, body),
    };
  };

  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: { 'Http:BodyLimitBytes': 16 * 1024 * 1024, 'Scenarios:MaxMutants': 2000 },
    });
    // the code paths and the worker thread started on a small table first
    const tables = client(sut.url);
    const small = await tables.post('', bigTable(4, 'warm'));
    const api = scenarios(sut.url);
    const plan = await api.post('/plans', { tableId: small.body.id });
    await api.post(`/plans/${plan.body.id}/runs`, {});
    budget = await LivenessBudget.measure(sut.url, PROBE_MS);
  }, 120_000);
  afterAll(() => sut?.stop());

  it('generates, runs and gates the plan while /health/live keeps answering', async () => {
    const tables = client(sut.url);
    const api = scenarios(sut.url);
    const saved = await tables.post('', bigTable(ROWS, 'scenarios-1000'));
    expect(saved.status).toBe(201);
    const tableId = saved.body.id as string;

    const generated = await whileProbingLiveness(sut.url, () => api.post('/plans', { tableId }));
    expect(generated.result.status).toBe(201);
    const plan = generated.result.body;
    // every row gets its own scenarios (9,029 with this generator and seed)
    expect(plan.scenarioCount).toBeGreaterThan(5 * ROWS);
    expect(plan.scenarios).toHaveLength(200);
    expect(generated.worstProbeMs).toBeLessThan(await budget.limitFor(generated.worstProbeMs));

    const ran = await whileProbingLiveness(sut.url, () => api.post(`/plans/${plan.id}/runs`, {}));
    expect(ran.result.status).toBe(201);
    expect(ran.result.body).toMatchObject({ passed: plan.scenarioCount, failed: 0, errored: 0 });
    expect(ran.result.body.coverage.rows.percent).toBe(100);
    expect(ran.worstProbeMs).toBeLessThan(await budget.limitFor(ran.worstProbeMs));
    const results = await api.get(`/runs/${ran.result.body.id}/results?pageSize=1000`);
    expect(results.body).toHaveLength(1000);
    expect(results.body[0]).toMatchObject({ status: 'Passed', matchesExpectation: true });

    // the gate: the plan run again, then the mutation run (a sample of Scenarios:MaxMutants mutants)
    const gated = await whileProbingLiveness(sut.url, () => api.post('/gate', { tableId, minCoverage: 100 }));
    expect(gated.result.status).toBe(200);
    expect(gated.result.body.passed).toBe(true);
    expect(gated.result.body.mutation.sampled).toBe(true);
    expect(gated.result.body.mutation.mutants).toBeGreaterThan(1500);
    expect(gated.result.body.mutation.score).toBeGreaterThanOrEqual(90);
    expect(gated.worstProbeMs).toBeLessThan(await budget.limitFor(gated.worstProbeMs));
  }, 300_000);
});
