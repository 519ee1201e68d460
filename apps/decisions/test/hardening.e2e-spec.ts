import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { decisionsService } from '../src';
import { client } from './helpers';

/** `rows` rows whose one condition each runs a `for … return` of `size` iterations (and never matches). */
function loopTable(name: string, rows: number, size: number) {
  return {
    name,
    hitPolicy: 'First',
    inputColumns: [{ name: 'x', type: 'number' }],
    outputColumns: [{ name: 'y', type: 'number' }],
    rows: Array.from({ length: rows }, (_, i) => ({
      id: `r${i + 1}`,
      inputConditions: { x: `count(for i in 1..${size} return i) < 0` },
      outputs: { y: i },
    })),
  };
}

const LIMIT_CODES = ['EVALUATION_BUDGET_EXCEEDED', 'DEADLINE_EXCEEDED'];

describe('decisions hardening: evaluations cannot hang the service', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    api = client(sut.url, 'hardening');
  });
  afterAll(() => sut?.stop());

  it('a crafted 200-row table is cut off within about a second with a 422 naming the limit', async () => {
    const created = await api.post('', loopTable('loops', 200, 100_000));
    expect(created.status).toBe(201);
    const id = created.body.id;
    await api.post(`/${id}/evaluate`, { input: { x: 1 } }); // compile outside the timing
    const started = Date.now();
    const [evaluated, live] = await Promise.all([
      api.post(`/${id}/evaluate`, { input: { x: 1 } }),
      // queued behind the evaluation on the event loop: answers as soon as it is cut off
      new Promise((resolve) => setTimeout(resolve, 20)).then(() => fetch(`${sut.url}/health/live`)),
    ]);
    const elapsed = Date.now() - started;
    expect(evaluated.status).toBe(422);
    expect(LIMIT_CODES).toContain(evaluated.body.code);
    expect(evaluated.body.error).toMatch(/DecisionTables:Evaluation(StepBudget|TimeoutMs)/);
    expect(elapsed).toBeLessThan(2_500);
    expect(live.status).toBe(200);
    // the execute form is bounded the same way, and the service keeps answering
    const executed = await api.post(`/${id}/execute`, { x: 1 });
    expect(executed.status).toBe(422);
    expect(LIMIT_CODES).toContain(executed.body.code);
    expect((await api.get(`/${id}`)).status).toBe(200);
  });

  it('the step budget is per evaluation: cells that each stay far below it still add up', async () => {
    // 40 cells × ~60,000 steps = 2.4 million steps (the default budget is 1 million)
    const id = (await api.post('', loopTable('adds up', 40, 30_000))).body.id;
    const r = await api.post(`/${id}/evaluate`, { input: { x: 1 } });
    expect(r.status).toBe(422);
    expect(LIMIT_CODES).toContain(r.body.code);
    // a table within the budget answers as before
    const small = (await api.post('', loopTable('small loops', 3, 1000))).body.id;
    const ok = await api.post(`/${small}/evaluate`, { input: { x: 1 } });
    expect(ok.status).toBe(200);
    expect(ok.body.matchedRows).toEqual([]);
  });

  it('POST /{id}/feel is bounded: a runaway expression is a 422 naming the limit', async () => {
    const id = (await api.post('', loopTable('feel host', 1, 1))).body.id;
    const started = Date.now();
    const r = await api.post(`/${id}/feel`, {
      expression: 'sum(for i in 1..100000 return sum(for j in 1..1000 return j)) > 0',
    });
    expect(r.status).toBe(422);
    expect(LIMIT_CODES).toContain(r.body.code);
    expect(Date.now() - started).toBeLessThan(2_500);
    const fine = await api.post(`/${id}/feel`, { expression: 'count(for i in 1..10 return i)' });
    expect(fine.status).toBe(200);
    expect(fine.body.result).toBe(10);
  });
});
