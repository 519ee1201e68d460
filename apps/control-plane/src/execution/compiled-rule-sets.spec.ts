import type { RuleEngineSettings } from './execution.settings';
import type { DecisionTableClient } from './adapters/decision-table-client';
import type { HttpConnectorInvoker } from './adapters/http-connectors';
import { CompiledRuleSets } from './compiled-rule-sets';
import type { ExecutableVersion, RuleSetVersions } from './rule-set-versions';

const version = (n: number, workflowName = 'loan', tenantId = 'acme'): ExecutableVersion => ({
  tenantId,
  workflowName,
  version: n,
  shape: 'rules',
  document: { rules: [{ id: '1', name: `v${n}`, condition: 'amount > 1', output: { version: n } }] },
});

const tableVersion = (n: number): ExecutableVersion => ({
  tenantId: 'acme',
  workflowName: 'tabled',
  version: n,
  shape: 'flow-graph',
  document: {
    type: 'flow-graph',
    schemaVersion: 1,
    start: 'dt',
    nodes: [{ id: 'dt', kind: 'decision-table', config: { tableRef: { id: 'tbl-1' }, outputVariable: 'r' } }],
  },
});

function cache(capacity: number) {
  const forgotten: string[] = [];
  const tables = {
    resolve: async (_tenant: string, ref: { id?: string }) => ({
      id: ref.id,
      name: 'risk',
      hitPolicy: 'First',
      inputColumns: [{ name: 'a', type: 'number', expression: 'a' }],
      outputColumns: [{ name: 'x', type: 'number' }],
      rows: [{ id: 'r1', inputConditions: { a: '> 1' }, outputs: { x: 1 } }],
    }),
    forget: (tenant: string, id: string) => forgotten.push(`${tenant}/${id}`) > 0,
  } as unknown as DecisionTableClient;
  const compiled = new CompiledRuleSets(
    { compiledCacheCapacity: capacity } as RuleEngineSettings,
    {} as RuleSetVersions,
    tables,
    {} as HttpConnectorInvoker,
  );
  return { compiled, forgotten };
}

describe('CompiledRuleSets', () => {
  it('compiles a version once and answers later calls without a promise, by the same or an equal version object', async () => {
    const { compiled } = cache(10);
    const v1 = version(1);
    const first = await compiled.get(v1);
    expect(compiled.get(v1)).toBe(first);
    expect(compiled.get(version(1))).toBe(first); // another object of the same version: found by its key
    expect(compiled.compilations).toBe(1);
    expect(compiled.hits).toBe(2);
    expect((await first.evaluate({ amount: 5 })).outputs).toEqual({ version: 1 });
  });

  it('keeps tenants, workflows and versions apart', async () => {
    const { compiled } = cache(10);
    const sets = await Promise.all(
      [version(1), version(2), version(1, 'other'), version(1, 'loan', 'globex')].map((v) => compiled.get(v)),
    );
    expect(new Set(sets).size).toBe(4);
    expect(compiled.size).toBe(4);
  });

  it('evicts the least recently used version when over capacity, not the oldest compiled', async () => {
    const { compiled } = cache(2);
    const [v1, v2, v3] = [version(1), version(2), version(3)];
    await compiled.get(v1);
    await compiled.get(v2);
    await compiled.get(v1); // v1 used after v2
    await compiled.get(v3); // overflows: v2 goes
    expect(compiled.evictions).toBe(1);
    expect(compiled.size).toBe(2);
    const before = compiled.compilations;
    await compiled.get(v1);
    expect(compiled.compilations).toBe(before);
    await compiled.get(v2); // compiled again, even by the object that found it before
    expect(compiled.compilations).toBe(before + 1);
  });

  it('drops every version that uses a changed table; the same version object then compiles again', async () => {
    const { compiled, forgotten } = cache(10);
    const tabled = tableVersion(1);
    const plain = version(1);
    const before = await compiled.get(tabled);
    await compiled.get(plain);
    expect(compiled.onTableChanged('acme', 'tbl-1')).toBe(1);
    expect(forgotten).toEqual(['acme/tbl-1']);
    expect(compiled.onTableChanged('acme', 'other')).toBe(0);
    const after = await compiled.get(tabled);
    expect(after).not.toBe(before);
    expect(compiled.get(plain)).not.toBeInstanceOf(Promise);
  });

  it('forgets a version that does not compile (the next call tries again) and clears per tenant', async () => {
    const { compiled } = cache(10);
    const broken: ExecutableVersion = { ...version(9), document: { rules: 'not a list' } };
    await expect(compiled.get(broken)).rejects.toMatchObject({ code: expect.any(String) });
    await expect(compiled.get(broken)).rejects.toBeDefined();
    expect(compiled.compilations).toBe(2);
    await compiled.get(version(1));
    await compiled.get(version(1, 'loan', 'globex'));
    compiled.clear('acme');
    expect(compiled.size).toBe(1);
  });
});
