import type { RuleCatalogItem } from './catalog-item';
import { groupCatalog } from './catalog-item';
import { isStructuralField } from './contract-fields';
import { composeAuthoringContract, composeFlowContract } from './flow-contracts';
import { buildFlowModel, upstreamOf } from './flow-model';

const item = (code: string, category: string, over: Partial<RuleCatalogItem> = {}): RuleCatalogItem => ({
  code,
  displayName: code.toLowerCase(),
  category,
  tags: [],
  hidden: false,
  sourceKey: 'test',
  inputSchema: {
    contractName: `${code}In`,
    fields: [{ path: `${code.toLowerCase()}.in`, dataType: 'number' }],
  },
  outputSchema: {
    contractName: `${code}Out`,
    fields: [{ path: `${code.toLowerCase()}Out`, dataType: 'boolean' }],
  },
  ...over,
});
const catalog = new Map([['SCORE', item('SCORE', 'Credit')]]);
const lookup = (code: string) => catalog.get(code);
const paths = (c: { fields: { path: string }[] }) => c.fields.map((f) => f.path);

/** a → b, a → c, b → d, c → d (diamond); e is disconnected. */
const diamond = buildFlowModel(
  {
    inputs: [{ path: 'x', dataType: 'number' }],
    nodes: [
      {
        id: 'a',
        kind: 'condition',
        config: {},
        edges: [
          { kind: 'on-true', target: 'b' },
          { kind: 'on-false', target: 'c' },
        ],
      },
      { id: 'b', kind: 'connector', config: { connector: 'SCORE' }, edges: [{ kind: 'next', target: 'd' }] },
      {
        id: 'c',
        kind: 'feel-expression',
        config: { outputVariable: 'cOut' },
        outputs: [
          { path: 'cOut', dataType: 'number' },
          { path: 'status.IsSuccess', dataType: 'boolean' },
        ],
        edges: [{ kind: 'always', target: 'd' }],
      },
      { id: 'd', kind: 'template', config: { outputVariable: 'text' } },
      { id: 'e', kind: 'sub-flow', config: { workflowName: 'other' } },
    ],
  },
  'flow-graph',
);

describe('flow contracts (pure)', () => {
  it('finds every transitive predecessor once, in document order', () => {
    expect(upstreamOf(diamond, 'd').map((n) => n.id)).toEqual(['a', 'b', 'c']);
    expect(upstreamOf(diamond, 'e')).toEqual([]);
    expect(upstreamOf(diamond, 'nope')).toEqual([]);
  });

  it('requestScope = inputs + upstream facts, responseDelta = own facts, both without structural fields', () => {
    const d = composeAuthoringContract('f', diamond, 'd', lookup)!;
    expect(paths(d.requestScope)).toEqual(['x', 'scoreOut', 'cOut']);
    expect(d.responseDelta).toEqual({
      contractName: 'f.d.responseDelta',
      fields: [{ path: 'text', dataType: 'string' }],
    });
    expect(paths(composeAuthoringContract('f', diamond, 'c', lookup)!.responseDelta)).toEqual(['cOut']);
    expect(composeAuthoringContract('f', diamond, 'zz', lookup)).toBeUndefined();
  });

  it('a flow without declared inputs takes the catalog inputs of its rules; the response drops structural fields', () => {
    const model = buildFlowModel(
      { type: 'code-based', rules: [{ code: 'SCORE' }, { code: 'UNKNOWN' }] },
      'code-based',
    );
    const contract = composeFlowContract('cb', model, lookup);
    expect(paths(contract.request)).toEqual(['score.in']);
    expect(contract.nodes.map((n) => [n.nodeId, n.resolvedFrom])).toEqual([
      ['SCORE', 'manifest'],
      ['UNKNOWN', 'none'],
    ]);
    expect(paths(composeFlowContract('f', diamond, lookup).response)).toEqual(['scoreOut', 'cOut', 'text']);
  });

  it('the rules form derives outputs from each rule output (typed by value); its rules are independent', () => {
    const model = buildFlowModel(
      {
        rules: [
          {
            id: 'r1',
            name: 'R1',
            condition: 'x > 1',
            output: { tier: 'gold', limit: 5, flags: [], vip: true },
          },
        ],
      },
      'rules',
    );
    expect(model.nodes[0].derivedOutputs).toEqual([
      { path: 'tier', dataType: 'string' },
      { path: 'limit', dataType: 'number' },
      { path: 'flags', dataType: 'array' },
      { path: 'vip', dataType: 'boolean' },
    ]);
    expect(model.nodes[0].predecessors).toEqual([]);
  });

  it('structural fields are matched on the last segment, case-insensitively', () => {
    expect(['success', 'result.isSuccess', 'ErrorCode', 'a.message', 'errors'].every(isStructuralField)).toBe(
      true,
    );
    expect(['successRate', 'messageCount', 'kycOk', 'code'].some(isStructuralField)).toBe(false);
  });
});

describe('groupCatalog', () => {
  const items = [
    item('B_RULE', 'beta', { tags: ['Fraud'] }),
    item('A_RULE', 'Alpha'),
    item('C_RULE', 'beta', { hidden: true }),
  ];
  it('groups by category (sorted case-insensitively), items by code, hidden left out by default', () => {
    expect(groupCatalog(items, {}).map((g) => [g.category, g.items.map((i) => i.code)])).toEqual([
      ['Alpha', ['A_RULE']],
      ['beta', ['B_RULE']],
    ]);
    expect(groupCatalog(items, { includeHidden: true })[1].items.map((i) => i.code)).toEqual([
      'B_RULE',
      'C_RULE',
    ]);
  });
  it('filters by exact category and by search (code, display name, tags)', () => {
    expect(groupCatalog(items, { category: 'BETA' }).map((g) => g.category)).toEqual(['beta']);
    expect(groupCatalog(items, { category: 'bet' })).toEqual([]);
    expect(groupCatalog(items, { search: 'fraud' })[0].items[0].code).toBe('B_RULE');
    expect(groupCatalog(items, { search: 'a_r' })[0].items[0].code).toBe('A_RULE');
  });
});
