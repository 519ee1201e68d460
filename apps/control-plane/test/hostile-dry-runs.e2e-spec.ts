/**
 * Nothing a rule author sends stalls the service: hostile dry-runs of unsaved rule sets run on the
 * dry-run worker threads, end within the dry-run limit with a code naming the limit, and `/health/live`
 * keeps answering meanwhile.
 */
import { ServiceUnderTest, startServiceForTest, whileProbingLiveness } from '@arbiter/testing';
import { controlPlaneService } from '../src';
import { A, B, client } from './helpers';

/** The dry-run limit of this suite (`RuleEngineOptions:DryRunTimeoutMs`). */
const LIMIT_MS = 4000;
/**
 * The longest a probe may wait. The target is 100 ms (set `LIVENESS_PROBE_MS=100` on a quiet
 * machine). On the shared 2-core development machine (load 13–18 while these ran) an idle service kept a
 * probe waiting 37–446 ms, and a worker thread burning a core (a FEEL loop allocating) pushed the
 * service's thread to 0.6–1.6 s; so the default is half the limit: a dry-run held on the event loop
 * keeps probes waiting the whole limit and fails it.
 */
const PROBE_MS = Number(process.env.LIVENESS_PROBE_MS ?? LIMIT_MS / 2);
/** What the request may take beyond its limit (the HTTP round trip, the worker's answer) */
const SLACK_MS = 1000;

const flow = (config: Record<string, unknown>) => ({
  type: 'flow-graph',
  schemaVersion: 1,
  start: 'js',
  nodes: [{ id: 'js', kind: 'javascript-condition', config }],
});

const feelLoop = {
  rules: [
    {
      id: 'loop',
      name: 'Loop',
      condition: 'sum(for i in 1..100000 return sum(for j in 1..1000 return j)) > 0',
      output: { hit: true },
    },
  ],
};

describe('hostile dry-runs (unsaved rule sets) on the dry-run workers', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'RuleControlPlane:RequireApproval': false,
        'RuleEngineOptions:DryRunTimeoutMs': LIMIT_MS,
        'RuleEngineOptions:DryRunWorkers:MaxThreads': 1,
        'RuleEngineOptions:DryRunWorkers:MemoryMb': 64,
      },
    });
    api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    // the first dry-run and probe load their code paths (and the response contract checks): not measured
    await fetch(`${sut.url}/health/live`);
    await api.post(`${A}/warm/dry-run`, {
      ruleSet: { rules: [{ id: 'w', name: 'W', condition: 'amount > 0', output: { w: true } }] },
      context: { amount: 1 },
    });
  }, 120_000);
  afterAll(() => sut?.stop());

  const dryRun = (path: string, ruleSet: unknown) =>
    whileProbingLiveness(sut.url, () => api.post(path, { ruleSet, context: { amount: 1 } }));

  it.each([
    [
      'a FEEL loop of 10^8 steps (rules form)',
      `${A}/loop/dry-run`,
      feelLoop,
      ['DEADLINE_EXCEEDED', 'EVALUATION_BUDGET_EXCEEDED', 'DRY_RUN_TIMEOUT'],
    ],
    [
      'while(true){} with a timeoutMs past the dry-run limit',
      `${A}/spin/dry-run`,
      flow({ script: 'while(true){}', timeoutMs: 10000 }),
      ['DEADLINE_EXCEEDED', 'DRY_RUN_TIMEOUT'],
    ],
    [
      'an allocation loop QuickJS does not interrupt (native fill)',
      `${A}/alloc/dry-run`,
      flow({ script: 'var a=[]; while(true){a.push(new Array(100000).fill(1));}' }),
      ['SANDBOX_MEMORY', 'SANDBOX_TIMEOUT', 'DRY_RUN_TIMEOUT'],
    ],
    [
      'a native loop over a huge array-like',
      `${B}/rulesets/scan/dry-run`,
      flow({ script: 'return Array.prototype.includes.call({length: 1e15}, 1);', timeoutMs: 10000 }),
      ['DEADLINE_EXCEEDED', 'DRY_RUN_TIMEOUT'],
    ],
  ])(
    '%s: ends within the limit with a code naming it; /health/live answers meanwhile',
    async (_, path, ruleSet, codes) => {
      const { result: res, elapsedMs, worstProbeMs, probes } = await dryRun(path, ruleSet);
      expect(res.status).toBe(200);
      const errors = res.body.errors as { code: string; message: string }[];
      expect(errors.length).toBeGreaterThan(0);
      expect(codes).toContain(errors[errors.length - 1].code);
      expect(JSON.stringify(errors)).not.toMatch(/evaluated to null/);
      expect(elapsedMs).toBeLessThan(LIMIT_MS + SLACK_MS);
      // a probe every 20 ms while it ran (a script stopped at its 50 ms limit answers after a few)
      expect(probes).toBeGreaterThanOrEqual(Math.min(5, Math.floor(elapsedMs / 40)));
      expect(worstProbeMs).toBeLessThan(PROBE_MS);
    },
  );

  it('a rule set that needs the service (a stored table) still runs, in the service', async () => {
    const res = await api.post(`${A}/tables/dry-run`, {
      ruleSet: {
        type: 'flow-graph',
        schemaVersion: 1,
        start: 't',
        nodes: [{ id: 't', kind: 'decision-table', config: { tableRef: { name: 'nowhere' } } }],
      },
      context: {},
    });
    // the decisions service is not running here: the in-service path answers (not the worker's)
    expect([400, 422, 503]).toContain(res.status);
    expect(res.body.code).not.toMatch(/WORKER/);
  });

  it('an ordinary dry-run on the worker gives the same result as before', async () => {
    const res = await api.post(`${B}/rulesets/plain/dry-run`, {
      ruleSet: {
        rules: [{ id: 'big', name: 'Big', condition: 'input.amount > 10', output: { tier: 'gold' } }],
      },
      context: { amount: 50 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      rulesMatched: true,
      outputFacts: { tier: 'gold' },
      matchedRules: ['Big'],
      errors: [],
      version: null,
    });
    const invalid = await api.post(`${B}/rulesets/plain/dry-run`, {
      ruleSet: { rules: [{ id: 'x', name: 'X', condition: 'input.amount >', output: {} }] },
      context: {},
    });
    expect(invalid.status).toBe(400);
  });
});

describe('saved rule sets that loop: executed off the event loop', () => {
  /** `RuleEngineOptions:ExecutionTimeoutMs` of this suite */
  const EXECUTION_MS = 3000;
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  const saveAndActivate = async (workflow: string, ruleSet: unknown) => {
    const saved = await api.post(`${A}/${workflow}`, { ruleSet, activateAfterSave: true });
    expect(saved.status).toBe(200);
  };
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'RuleControlPlane:RequireApproval': false,
        'RuleEngineOptions:ExecutionTimeoutMs': EXECUTION_MS,
        'RuleEngineOptions:ExecutionWorkers:MaxThreads': 1,
      },
    });
    api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    await fetch(`${sut.url}/health/live`);
    await saveAndActivate('loop', feelLoop);
    await saveAndActivate('sum', {
      rules: [
        // about 150,000 FEEL steps: past the in-process share (100,000), far below the whole budget
        {
          id: 's',
          name: 'Sum',
          condition: 'sum(for i in 1..50000 return i) > amount',
          output: { big: true },
        },
        { id: 'c', name: 'Cheap', condition: 'amount > 0', output: { positive: true } },
      ],
    });
  }, 120_000);
  afterAll(() => sut?.stop());

  it('a saved FEEL loop ends within ExecutionTimeoutMs with a code naming the limit; /health/live answers meanwhile', async () => {
    const {
      result: res,
      elapsedMs,
      worstProbeMs,
    } = await whileProbingLiveness(sut.url, () =>
      api.post('/api/v1/rule-engine/execute/loop', { facts: { amount: 1 } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('error');
    const codes = (res.body.errors as { code: string }[]).map((e) => e.code);
    expect(['EVALUATION_BUDGET_EXCEEDED', 'DEADLINE_EXCEEDED']).toContain(codes[codes.length - 1]);
    expect(JSON.stringify(res.body.errors)).not.toMatch(/evaluated to null/);
    expect(elapsedMs).toBeLessThan(EXECUTION_MS + SLACK_MS);
    expect(worstProbeMs).toBeLessThan(PROBE_MS);
  });

  it('a version that outgrows the in-process share gives the same answer from the worker', async () => {
    const res = await api.post('/api/v1/rule-engine/execute/sum', { facts: { amount: 10 }, trace: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'success',
      outputs: { big: true, positive: true },
      rulesMatched: ['Sum', 'Cheap'],
      errors: [],
    });
    expect((res.body.traces as unknown[]).length).toBe(2);
  });

  it('a dry-run of the stored loop runs on a worker too', async () => {
    const { result: res, worstProbeMs } = await whileProbingLiveness(sut.url, () =>
      api.post(`${A}/loop/dry-run`, { inputs: { amount: 1 } }),
    );
    expect(res.status).toBe(200);
    const codes = (res.body.errors as { code: string }[]).map((e) => e.code);
    expect(['EVALUATION_BUDGET_EXCEEDED', 'DEADLINE_EXCEEDED', 'DRY_RUN_TIMEOUT']).toContain(
      codes[codes.length - 1],
    );
    expect(worstProbeMs).toBeLessThan(PROBE_MS);
    const sum = await api.post(`${A}/sum/dry-run`, { inputs: { amount: 10 } });
    expect(sum.body).toMatchObject({ outputs: { big: true, positive: true }, errors: [] });
  });
});
