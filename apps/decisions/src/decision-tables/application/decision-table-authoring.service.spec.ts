import { AnalysisWorkers } from './analysis-workers';
import { DecisionTableEvaluationService } from './decision-table-evaluation.service';
import { AuthenticatedUser, InProcessEventBus, RequestContext } from '@arbiter/platform';
import { DecisionTablesSettings } from '../../settings';
import {
  inMemoryUnitOfWork,
  InMemoryDecisionTableRepository,
} from '../../../test/in-memory-decision-table.repository';
import { sampleTable } from '../../../test/helpers';
import { CompiledTableCache } from './compiled-table-cache';
import { DecisionTableAuthoringService } from './decision-table-authoring.service';

const page = { offset: 0, pageSize: 50 };

describe('DecisionTableAuthoringService', () => {
  let repo: InMemoryDecisionTableRepository;
  let bus: InProcessEventBus;
  let cache: CompiledTableCache;
  let tables: DecisionTableAuthoringService;
  const events: unknown[] = [];
  const inTenant = <T>(fn: () => T, user?: AuthenticatedUser) =>
    RequestContext.run({ tenantId: 'tenant-a', headerActor: 'alice', user }, fn);

  beforeEach(async () => {
    repo = new InMemoryDecisionTableRepository();
    bus = new InProcessEventBus('test');
    events.length = 0;
    await bus.subscribe('arbiter.decision-table.changed', (e) => {
      events.push(e.data);
    });
    cache = new CompiledTableCache(10);
    const settings = new DecisionTablesSettings();
    const uow = inMemoryUnitOfWork();
    tables = new DecisionTableAuthoringService(
      uow,
      repo,
      bus,
      cache,
      settings,
      new AnalysisWorkers(settings),
      new DecisionTableEvaluationService(uow, repo, bus, cache, settings),
    );
  });
  afterEach(() => bus.close());

  it('creates version 1 with an audit entry by the actor, and announces it', async () => {
    await inTenant(async () => {
      const created = await tables.create({ ...sampleTable(), comment: 'first' });
      expect(created).toMatchObject({ name: 'Loan risk', version: 1 });
      expect(await tables.get(created.id)).toMatchObject({
        id: created.id,
        version: 1,
        tenantId: 'tenant-a',
      });
      expect(await tables.versions(created.id, page)).toEqual([
        { version: 1, createdAt: expect.any(String), createdBy: 'alice', comment: 'first' },
      ]);
      expect(await tables.audit(created.id, page)).toEqual([
        expect.objectContaining({
          action: 'Create',
          actor: 'alice',
          changesSummary: 'Created with 3 row(s), 2 input and 1 output column(s)',
        }),
      ]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(events).toEqual([
        expect.objectContaining({ tableId: created.id, version: 1, change: 'created' }),
      ]);
    });
  });

  it('refuses a duplicate name (409) and an invalid definition (400) without writing', async () => {
    await inTenant(async () => {
      await tables.create(sampleTable());
      await expect(tables.create(sampleTable())).rejects.toMatchObject({
        status: 409,
        code: 'DUPLICATE_TABLE_NAME',
      });
      await expect(tables.create({ ...sampleTable('Other'), hitPolicy: 'Sometimes' })).rejects.toMatchObject({
        status: 400,
        code: 'INVALID_TABLE',
      });
      expect(repo.tables).toHaveLength(1);
    });
  });

  it('updates into a new version, summarizes the change in the audit and drops compiled copies', async () => {
    await inTenant(async () => {
      const { id } = await tables.create(sampleTable());
      cache.put('tenant-a', id, 1, {} as never, true);
      const next = sampleTable();
      next.rows.pop();
      next.rows[0].outputs.risk = 'child';
      expect(await tables.update(id, next)).toMatchObject({ id, version: 2 });
      expect(cache.latestVersion('tenant-a', id)).toBeUndefined();
      const [latest] = await tables.audit(id, page);
      expect(latest).toMatchObject({ action: 'Update', version: 2 });
      expect(latest.changesSummary).toBe('1 row(s) removed; 1 row(s) modified');
      const diff = await tables.diff(id, 1, 2);
      expect(diff.removedRows).toEqual(['r3']);
      await expect(tables.diff(id, 1, 3)).rejects.toMatchObject({ code: 'VERSION_NOT_FOUND' });
    });
  });

  it('deletes a table with its versions; the audit keeps the deletion', async () => {
    await inTenant(async () => {
      const { id } = await tables.create(sampleTable());
      await tables.remove(id);
      await expect(tables.get(id)).rejects.toMatchObject({ status: 404, code: 'TABLE_NOT_FOUND' });
      expect(repo.auditRows.map((a) => a.action)).toEqual(['Create', 'Delete']);
    });
  });

  it('finds a table by name, and exports its definition without what the service adds', async () => {
    await inTenant(async () => {
      const { id } = await tables.create(sampleTable());
      expect(await tables.getByName('Loan risk')).toMatchObject({ id });
      await expect(tables.getByName('nope')).rejects.toMatchObject({ code: 'TABLE_NOT_FOUND' });
      const exported = await tables.exportDefinition(id);
      expect(exported.id).toBe(id);
      expect(Object.keys(exported.definition).sort()).toEqual(
        ['description', 'hitPolicy', 'inputColumns', 'name', 'outputColumns', 'rows'].sort(),
      );
    });
  });

  it('imports each definition: success, duplicate skipped, invalid failed', async () => {
    await inTenant(async () => {
      await tables.create(sampleTable('Taken'));
      const result = await tables.importMany([sampleTable('New'), sampleTable('Taken'), 'not a table']);
      expect(result).toMatchObject({ imported: 1, skipped: 1, failed: 1 });
      expect(result.results.map((r) => r.status)).toEqual(['success', 'skipped', 'failed']);
      // nothing created and something failed: refused, naming the failed table
      await expect(tables.importMany([sampleTable('Taken'), { name: 'Bad' }])).rejects.toMatchObject({
        status: 400,
        code: 'IMPORT_FAILED',
        details: [{ field: 'tables[1]', message: expect.stringMatching(/^'Bad': /) }],
      });
    });
  });

  it('lists summaries by name, and checks unsaved definitions', async () => {
    await inTenant(async () => {
      await tables.create(sampleTable('b'));
      await tables.create(sampleTable('a'));
      expect((await tables.list(page)).map((t) => [t.name, t.rowCount])).toEqual([
        ['a', 3],
        ['b', 3],
      ]);
      expect(await tables.validate(sampleTable())).toMatchObject({ valid: true });
      await expect(tables.analyzeDefinition({ ...sampleTable(), rows: 'x' })).rejects.toThrow(
        expect.objectContaining({ code: 'INVALID_TABLE' }),
      );
    });
  });

  it('shows the global audit to administrators only', async () => {
    // a permission, never a role name
    const roleOnly = { id: 'u', name: 'root', roles: ['Admin'], permissions: [], claims: {} };
    const admin = {
      id: 'u',
      name: 'root',
      roles: [],
      permissions: ['decision-tables.audit.global'],
      claims: {},
    };
    await inTenant(() => tables.create(sampleTable()));
    await expect(inTenant(() => tables.globalAudit(page))).rejects.toMatchObject({ status: 403 });
    await expect(inTenant(() => tables.globalAudit(page), roleOnly)).rejects.toMatchObject({ status: 403 });
    expect(await inTenant(() => tables.globalAudit(page), admin)).toEqual([
      expect.objectContaining({ action: 'Create', tenantId: 'tenant-a', tableName: 'Loan risk' }),
    ]);
  });
});
