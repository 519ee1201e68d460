import { UnitOfWork } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { EntityManager } from 'typeorm';
import { controlPlaneService } from '../src';
import { RuleSetRepository } from '../src/rulesets';

/**
 * RuleSetRepository on the real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): migrations
 * applied, row-level security on, each statement inside the unit of work of a tenant.
 */
describe('RuleSetRepository', () => {
  let sut: ServiceUnderTest;
  let uow: UnitOfWork;
  let repo: RuleSetRepository;
  const at = new Date('2026-01-02T03:04:05.000Z');
  const as = <T>(tenantId: string, work: (m: EntityManager) => Promise<T>) => uow.run(work, { tenantId });

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb');
    uow = sut.service.app.get(UnitOfWork);
    repo = sut.service.app.get(RuleSetRepository);
  });
  afterAll(() => sut?.stop());

  async function saveDraft(tenantId: string, workflowName: string, rules: unknown[] = []) {
    return as(tenantId, async (m) => {
      const next = await repo.nextVersion(m, tenantId, workflowName, at, 'alice');
      await repo.insertDraft(m, {
        tenantId,
        workflowName,
        version: next.version,
        shape: 'rules',
        document: { rules },
        changeDescription: `v${next.version}`,
        createdAt: at,
        createdBy: 'alice',
      });
      return next;
    });
  }

  it('numbers versions per workflow and raises the revision with each', async () => {
    expect(await saveDraft('acme', 'loans')).toEqual({ version: 1, revision: 1 });
    expect(await saveDraft('acme', 'loans')).toEqual({ version: 2, revision: 2 });
    expect(await saveDraft('acme', 'cards')).toEqual({ version: 1, revision: 1 });
    const sets = await as('acme', (m) => repo.listSets(m));
    expect(sets.map((s) => [s.workflowName, s.latestVersion, s.activeVersion])).toEqual([
      ['cards', 1, null],
      ['loans', 2, null],
    ]);
  });

  it('keeps tenants apart (row-level security)', async () => {
    await saveDraft('globex', 'loans');
    expect(await as('globex', (m) => repo.findSet(m, 'loans'))).toMatchObject({ latestVersion: 1 });
    expect(await as('globex', (m) => repo.findSet(m, 'cards'))).toBeNull();
    expect(await as('globex', (m) => repo.findVersion(m, 'loans', 2))).toBeNull();
    const tenants = await uow.run((m) => repo.tenantSummaries(m), { acrossTenants: true });
    expect(tenants.map((t) => [t.tenant_id, Number(t.workflows)])).toEqual([
      ['acme', 2],
      ['globex', 1],
    ]);
  });

  it('lists version summaries newest first, without documents, paged', async () => {
    const page = await as('acme', (m) => repo.versionSummaries(m, 'loans', 1, 0));
    expect(page.map((v) => v.version)).toEqual([2]);
    expect(page[0].document).toBeUndefined();
    expect(page[0]).toMatchObject({ status: 'Draft', changeDescription: 'v2', createdBy: 'alice' });
    const all = await as('acme', (m) => repo.allVersions(m, 'loans'));
    expect(all.map((v) => [v.version, v.document])).toEqual([
      [1, { rules: [] }],
      [2, { rules: [] }],
    ]);
  });

  it('writes the lifecycle columns: submit, reject, approve, activate, archive', async () => {
    const revision = await as('acme', async (m) => {
      await repo.lockSet(m, 'loans');
      await repo.markSubmitted(m, 'loans', 1, 'PendingApproval', 'alice', at);
      await repo.markRejected(m, 'loans', 1, 'Draft', 'bob', at, 'not yet');
      await repo.markSubmitted(m, 'loans', 1, 'PendingApproval', 'alice', at);
      await repo.markApproved(m, 'loans', 1, 'Approved', 'bob', at);
      return repo.activateVersion(m, 'loans', 1, 'Active', at, 'bob');
    });
    expect(revision).toBe(3);
    const v1 = await as('acme', (m) => repo.findVersion(m, 'loans', 1, true));
    expect(v1).toMatchObject({
      status: 'Active',
      submittedBy: 'alice',
      approvedBy: 'bob',
      activatedBy: 'bob',
      rejectedBy: null,
      rejectionReason: null,
    });
    expect(await as('acme', (m) => repo.lockSet(m, 'loans'))).toEqual({ activeVersion: 1 });

    await as('acme', async (m) => {
      await repo.archiveVersion(m, 'loans', 1, 'Archived', at);
      await repo.activateVersion(m, 'loans', 2, 'Active', at, 'bob');
    });
    const statuses = await as('acme', (m) => repo.allVersions(m, 'loans'));
    expect(statuses.map((v) => [v.version, v.status])).toEqual([
      [1, 'Archived'],
      [2, 'Active'],
    ]);
    expect(await as('acme', (m) => repo.pendingApprovals(m))).toEqual([]);
  });

  it('raises revisions of one workflow or of every workflow of the tenant', async () => {
    const before = await as('acme', (m) => repo.findSet(m, 'cards'));
    const one = await as('acme', (m) => repo.bumpRevisions(m, 'cards', at, 'ops'));
    expect(one).toEqual([
      { workflow_name: 'cards', revision: String(Number(before!.revision) + 1), active_version: null },
    ]);
    expect(await as('acme', (m) => repo.bumpRevisions(m, 'missing', at, 'ops'))).toEqual([]);
    const all = await as('acme', (m) => repo.bumpRevisions(m, undefined, at, 'ops'));
    expect(all.map((r) => r.workflow_name).sort()).toEqual(['cards', 'loans']);
    expect(await as('acme', (m) => repo.touch(m, 'cards', at, 'ops'))).toBe(Number(before!.revision) + 3);
    const revisions = await uow.run((m) => repo.revisions(m), { acrossTenants: true });
    expect(revisions).toHaveLength(3);
  });

  it('reads the current version of each workflow (the active one, else the latest) with its document', async () => {
    await saveDraft('acme', 'loans', [{ id: 'r3' }]);
    const current = await as('acme', (m) => repo.currentVersions(m, null));
    expect(current.map((c) => [c.workflowName, c.version, c.activeVersion, c.status, c.document])).toEqual([
      ['cards', 1, null, 'Draft', { rules: [] }],
      ['loans', 2, 2, 'Active', { rules: [] }],
    ]);
    expect(await as('acme', (m) => repo.currentVersions(m, 'cards'))).toEqual([current[0]]);
    expect(await as('globex', (m) => repo.currentVersions(m, 'cards'))).toEqual([]);
  });

  it('lists the tenants that own rule sets (across tenants)', async () => {
    const owners = await uow.run((m) => repo.ownerTenants(m), { acrossTenants: true });
    expect(owners.sort()).toEqual(['acme', 'globex']);
  });
});
