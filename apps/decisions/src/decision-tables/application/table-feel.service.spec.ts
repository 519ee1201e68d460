import { AnalysisWorkers } from './analysis-workers';
import { DecisionTableEvaluationService } from './decision-table-evaluation.service';
import { InProcessEventBus, RequestContext } from '@arbiter/platform';
import { sampleTable } from '../../../test/helpers';
import {
  inMemoryUnitOfWork,
  InMemoryDecisionTableRepository,
} from '../../../test/in-memory-decision-table.repository';
import { DecisionTablesSettings } from '../../settings';
import { CompiledTableCache } from './compiled-table-cache';
import { DecisionTableAuthoringService } from './decision-table-authoring.service';
import { TableFeelService } from './table-feel.service';

describe('TableFeelService', () => {
  const bus = new InProcessEventBus('test');
  const settings = new DecisionTablesSettings();
  const uow = inMemoryUnitOfWork();
  const repo = new InMemoryDecisionTableRepository();
  const cache = new CompiledTableCache(10);
  const tables = new DecisionTableAuthoringService(
    uow,
    repo,
    bus,
    cache,
    settings,
    new AnalysisWorkers(settings),
    new DecisionTableEvaluationService(uow, repo, bus, cache, settings),
  );
  const feel = new TableFeelService(tables, new DecisionTablesSettings());
  const inTenant = <T>(fn: () => T) => RequestContext.run({ tenantId: 'tenant-a' }, fn);
  let id: string;

  beforeAll(async () => {
    const table = sampleTable();
    table.inputColumns.push({ name: 'monthly', type: 'number', expression: 'income / 12' } as never);
    id = (await inTenant(() => tables.create(table))).id;
  });
  afterAll(() => bus.close());

  it("validates an expression with the table's columns and the facts of computed columns in scope", async () => {
    await inTenant(async () => {
      expect(await feel.validateExpression(id, 'age > 18 and income > 0', {})).toMatchObject({ valid: true });
      const bad = await feel.validateExpression(id, 'age >', {});
      expect(bad.valid).toBe(false);
    });
  });

  it('evaluates with sample input, computing computed columns the input lacks', async () => {
    await inTenant(async () => {
      expect(await feel.evaluate(id, 'monthly * 2', { income: 1200 })).toMatchObject({ result: 200 });
      await expect(feel.evaluate(id, '1 +', {})).rejects.toMatchObject({ status: 422, code: 'INVALID_FEEL' });
    });
  });

  it("suggests names, the table's columns included", async () => {
    await inTenant(async () => {
      const { suggestions } = await feel.autocomplete('a', undefined, ['amount'], id);
      const labels = suggestions.map((s) => s.label);
      expect(labels).toEqual(expect.arrayContaining(['amount', 'age']));
    });
  });
});
