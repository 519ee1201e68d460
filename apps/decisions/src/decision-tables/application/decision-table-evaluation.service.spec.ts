import { AnalysisWorkers } from './analysis-workers';
import { InProcessEventBus, RequestContext } from '@arbiter/platform';
import { DecisionTablesSettings } from '../../settings';
import {
  inMemoryUnitOfWork,
  InMemoryDecisionTableRepository,
} from '../../../test/in-memory-decision-table.repository';
import { sampleTable } from '../../../test/helpers';
import { CompiledTableCache } from './compiled-table-cache';
import { DecisionTableAuthoringService } from './decision-table-authoring.service';
import { DecisionTableEvaluationService } from './decision-table-evaluation.service';

describe('DecisionTableEvaluationService', () => {
  let repo: InMemoryDecisionTableRepository;
  let bus: InProcessEventBus;
  let authoring: DecisionTableAuthoringService;
  let evaluation: DecisionTableEvaluationService;
  const inTenant = <T>(fn: () => T) => RequestContext.run({ tenantId: 'tenant-a' }, fn);

  beforeEach(async () => {
    repo = new InMemoryDecisionTableRepository();
    bus = new InProcessEventBus('test');
    const settings = new DecisionTablesSettings();
    const cache = new CompiledTableCache(settings.compiledCacheSize);
    const uow = inMemoryUnitOfWork();
    evaluation = new DecisionTableEvaluationService(uow, repo, bus, cache, settings);
    authoring = new DecisionTableAuthoringService(
      uow,
      repo,
      bus,
      cache,
      settings,
      new AnalysisWorkers(settings),
      evaluation,
    );
    await evaluation.onModuleInit();
  });
  afterEach(() => bus.close());

  it('compiles on first use, then evaluates the latest version synchronously without reading the database', async () => {
    await inTenant(async () => {
      const { id } = await authoring.create(sampleTable());
      const first = await evaluation.evaluate(id, { age: 10 });
      expect(first).toMatchObject({ outputValues: { risk: 'minor' } });
      const reads = repo.reads;
      const second = evaluation.evaluate(id, { age: 30, country: 'NL' });
      expect(second).not.toBeInstanceOf(Promise);
      expect(second).toMatchObject({ outputValues: { risk: 'low' } });
      expect(typeof (second as { evaluationTimeMs: number }).evaluationTimeMs).toBe('number');
      expect(repo.reads).toBe(reads);
      // the counters cover every tenant: operators only
      expect(() => evaluation.metrics()).toThrow(expect.objectContaining({ status: 403, code: 'FORBIDDEN' }));
      const operator = {
        id: 'op',
        name: 'op',
        roles: [],
        permissions: ['decision-tables.metrics'],
        claims: {},
      };
      RequestContext.run({ tenantId: 'tenant-a', user: operator }, () =>
        expect(evaluation.metrics()).toMatchObject({ evaluations: 2, compiledCache: { compilations: 1 } }),
      );
    });
  });

  it('compiles a version when it is saved: the first evaluate after a create or an update is synchronous', async () => {
    await inTenant(async () => {
      const { id } = await authoring.create(sampleTable());
      await new Promise((resolve) => setImmediate(resolve)); // the compile runs after the response
      const reads = repo.reads;
      const first = evaluation.evaluate(id, { age: 10 });
      expect(first).not.toBeInstanceOf(Promise);
      expect(first).toMatchObject({ outputValues: { risk: 'minor' } });
      expect(repo.reads).toBe(reads);
      const changed = sampleTable();
      changed.rows[0].outputs.risk = 'child';
      await authoring.update(id, changed);
      await new Promise((resolve) => setImmediate(resolve));
      const readsAfterUpdate = repo.reads;
      const afterUpdate = evaluation.evaluate(id, { age: 10 });
      expect(afterUpdate).not.toBeInstanceOf(Promise);
      expect(afterUpdate).toMatchObject({ outputValues: { risk: 'child' } });
      expect(repo.reads).toBe(readsAfterUpdate);
      expect(evaluation.precompiled).toBe(2);
    });
  });

  it('evaluates an older version on request, and the new one after an update', async () => {
    await inTenant(async () => {
      const { id } = await authoring.create(sampleTable());
      await evaluation.evaluate(id, { age: 10 });
      const changed = sampleTable();
      changed.rows[0].outputs.risk = 'child';
      await authoring.update(id, changed);
      expect(await evaluation.evaluate(id, { age: 10 })).toMatchObject({ outputValues: { risk: 'child' } });
      expect(await evaluation.evaluate(id, { age: 10 }, 1)).toMatchObject({
        outputValues: { risk: 'minor' },
      });
    });
  });

  it('drops a compiled table when a change event arrives (another replica changed it)', async () => {
    await inTenant(async () => {
      const { id } = await authoring.create(sampleTable());
      await evaluation.evaluate(id, { age: 10 });
      await bus.publish('arbiter.decision-table.changed', {
        tableId: id,
        tenantId: 'tenant-a',
        version: 2,
        change: 'updated',
        occurredAt: new Date().toISOString(),
      });
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(evaluation.evaluate(id, { age: 10 })).toBeInstanceOf(Promise);
    });
  });

  it('answers with the error codes of the API', async () => {
    await inTenant(async () => {
      const { id } = await authoring.create(sampleTable());
      expect(() => evaluation.evaluate(id, [1])).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
      await expect(evaluation.evaluate(id, {})).rejects.toMatchObject({
        status: 400,
        code: 'MISSING_REQUIRED_INPUT',
      });
      await expect(evaluation.evaluate(id, { age: 1 }, 9)).rejects.toMatchObject({
        status: 404,
        code: 'VERSION_NOT_FOUND',
      });
      await expect(
        evaluation.evaluate('0b7c6f3e-7f0e-4f35-9d6e-2f1d2a3b4c5d', { age: 1 }),
      ).rejects.toMatchObject({ status: 404, code: 'TABLE_NOT_FOUND' });
      await expect(evaluation.execute(id, 'facts')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    });
  });

  it('reports a hit-policy violation as 422', async () => {
    await inTenant(async () => {
      const { id } = await authoring.create({ ...sampleTable(), hitPolicy: 'Unique' });
      await expect(evaluation.execute(id, { age: 30, country: 'NL' })).rejects.toMatchObject({
        status: 422,
        code: 'HIT_POLICY_VIOLATION',
      });
    });
  });

  it("does not see another tenant's table", async () => {
    const { id } = await inTenant(() => authoring.create(sampleTable()));
    await RequestContext.run({ tenantId: 'tenant-b' }, async () => {
      await expect(evaluation.evaluate(id, { age: 10 })).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
    });
  });

  it('executes flat facts and analyzes a stored version', async () => {
    await inTenant(async () => {
      const { id } = await authoring.create(sampleTable());
      expect(await evaluation.execute(id, { age: 70 })).toEqual({
        matchedRows: [expect.anything()],
        outputs: { risk: 'high' },
      });
      expect(await evaluation.analyze(id)).toMatchObject({ id, version: 1 });
    });
  });
});
