import { AppError } from '@arbiter/platform';
import {
  generateTableScenarios,
  keepDistinct,
  localEmbedding,
  mutationRun,
  runTableScenarios,
} from '@arbiter/scenarios';
import { bigTable, LOAN_TABLE } from '@arbiter/scenarios/fixtures';
import { ScenariosSettings } from '../../settings';
import { ScenarioWorkers } from './scenario-workers';

/** The worker thread answers what the library answers in process, and its failures keep their codes. */
describe('ScenarioWorkers', () => {
  const settings = Object.assign(new ScenariosSettings(), { workers: 1 });
  const workers = new ScenarioWorkers(settings);
  afterAll(() => workers.onModuleDestroy());

  it('generates, runs and mutates on a worker exactly as in process', async () => {
    const options = { seedRuleCode: 'loan', seed: 7, maxScenarios: 1000 };
    const plan = await workers.generate(LOAN_TABLE, options);
    const local = generateTableScenarios(LOAN_TABLE, options);
    expect(plan.scenarios).toEqual(local.scenarios);
    expect(plan.candidates).toBe(local.candidates);

    const runnable = plan.scenarios.map((s, i) => ({
      id: `s${i}`,
      inputFacts: s.inputFacts,
      expectedBehavior: s.expectedBehavior,
    }));
    const { report, mutation } = await workers.runPlan(LOAN_TABLE, runnable, { maxMutants: 50, seed: 7 });
    const localReport = runTableScenarios(LOAN_TABLE, runnable);
    expect(report.results.map(({ duration: _d, ...r }) => r)).toEqual(
      localReport.results.map(({ duration: _d, ...r }) => r),
    );
    expect(report.coverage).toEqual(localReport.coverage);
    const localMutation = mutationRun(LOAN_TABLE, runnable, { maxMutants: 50, seed: 7 });
    expect({ ...mutation, duration: 0 }).toEqual({ ...localMutation, duration: 0 });
    // without mutation options (a plain run), none
    expect((await workers.runPlan(LOAN_TABLE, runnable)).mutation).toBeNull();
  }, 60_000);

  it('computes expectations and near duplicates on a worker', async () => {
    const facts = [{ amount: 10, risk: 'high' }, { amount: 10, risk: 'high' }, { amount: 99999 }];
    const expected = await workers.expectations(LOAN_TABLE, facts, 'proposed');
    expect(expected).toHaveLength(3);
    expect(expected[0].description).toMatch(/^proposed: /);
    const local = keepDistinct(
      facts.slice(1).map((f) => localEmbedding(f)),
      0.99,
      [localEmbedding(facts[0])],
    );
    expect(await workers.keepDistinct({ facts, threshold: 0.99, against: 1 })).toEqual(local);
  }, 60_000);

  it('answers 422 INVALID_TABLE for a stored table that no longer compiles', async () => {
    const broken = { ...LOAN_TABLE, rows: [{ ...LOAN_TABLE.rows[0], inputConditions: { amount: '>>> 1' } }] };
    const error = await workers
      .generate(broken, { seedRuleCode: 'b', seed: 1, maxScenarios: 10 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 422, code: 'INVALID_TABLE' });
  }, 60_000);

  it('stops a task past Scenarios:WorkerTimeoutMs: 422 SCENARIO_DEADLINE_EXCEEDED', async () => {
    const quick = new ScenarioWorkers(Object.assign(new ScenariosSettings(), { workerTimeoutMs: 50 }));
    try {
      const error = await quick
        .generate(bigTable(3000), { seedRuleCode: 'big', seed: 1, maxScenarios: 50_000 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ status: 422, code: 'SCENARIO_DEADLINE_EXCEEDED' });
    } finally {
      await quick.onModuleDestroy();
    }
  }, 60_000);
});
