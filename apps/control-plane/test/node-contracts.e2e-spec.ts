import { FLOW_NODE_KINDS } from '@arbiter/rule-engine';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { controlPlaneService } from '../src';
import { A, B, client } from './helpers';

/** The called flow: a FEEL fact and a template fact. */
const child = {
  type: 'flow-graph',
  schemaVersion: 1,
  start: 'score',
  nodes: [
    {
      id: 'score',
      kind: 'feel-expression',
      config: { expression: 'income / 1000', outputVariable: 'score' },
      edges: [{ kind: 'next', target: 'note' }],
    },
    { id: 'note', kind: 'template', config: { template: 'score {{ score }}', outputVariable: 'note' } },
  ],
};

/** Every node kind of the registry, two sub flows (merged, and through an output mapping). */
const parent = {
  type: 'flow-graph',
  schemaVersion: 1,
  start: 'adult',
  nodes: [
    {
      id: 'adult',
      kind: 'condition',
      config: { expression: 'age >= 18' },
      edges: [
        { kind: 'on-true', target: 'whole' },
        { kind: 'on-false', target: 'refuse' },
      ],
    },
    {
      id: 'whole',
      kind: 'sub-flow',
      config: { workflowName: 'scoring-child', inputMapping: { income: 'income' } },
      edges: [{ kind: 'next', target: 'mapped' }],
    },
    {
      id: 'mapped',
      kind: 'sub-flow',
      config: {
        workflowName: 'scoring-child',
        inputMapping: { income: 'income' },
        outputMapping: { childScore: 'score' },
      },
      edges: [{ kind: 'next', target: 'band' }],
    },
    {
      id: 'band',
      kind: 'decision-table',
      config: {
        table: {
          name: 'banding',
          hitPolicy: 'First',
          inputColumns: [{ name: 'score', type: 'number' }],
          outputColumns: [{ name: 'band', type: 'string' }],
          rows: [
            { inputConditions: { score: '> 10' }, outputs: { band: '"high"' } },
            { inputConditions: { score: '<= 10' }, outputs: { band: '"low"' } },
          ],
        },
      },
      edges: [{ kind: 'next', target: 'vip' }],
    },
    {
      id: 'vip',
      kind: 'javascript-condition',
      config: { script: 'return facts.childScore > 10;' },
      edges: [
        { kind: 'on-true', target: 'greet' },
        { kind: 'on-false', target: 'greet' },
      ],
    },
    {
      id: 'greet',
      kind: 'template',
      // `message` is a fact the author named, not a structural result field
      config: { template: 'Hello {{ name }}, {{ note }} ({{ band }})', outputVariable: 'message' },
      edges: [{ kind: 'next', target: 'calc' }],
    },
    {
      id: 'calc',
      kind: 'feel-expression',
      config: { expression: 'childScore * 2', outputVariable: 'double' },
      edges: [{ kind: 'next', target: 'mail' }],
    },
    { id: 'mail', kind: 'connector', config: { connector: 'mailer', operation: 'send' } },
    {
      id: 'refuse',
      kind: 'feel-expression',
      config: { expression: '"too young"', outputVariable: 'refusal' },
    },
  ],
};

const paths = (contract: { fields: { path: string }[] }) => contract.fields.map((f) => f.path).sort();

/**
 * Issue 27 item 13: a node's contract is what the runtime hands it. For every node kind, the
 * authoring contract's `responseDelta` is exactly the facts the node produced in a dry-run, its
 * `requestScope` holds every fact produced upstream, and the flow's response contract holds every
 * output fact.
 */
describe('node contracts against what a dry-run produces (every node kind)', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': false },
    });
    api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    for (const [name, doc] of [
      ['scoring-child', child],
      ['every-kind', parent],
    ] as const) {
      const saved = await api.post(`${A}/${name}`, { ruleSet: doc, activateAfterSave: true });
      expect(saved.status).toBe(200);
    }
  });
  afterAll(() => sut?.stop());

  it('uses every node kind of the registry', () => {
    expect([...new Set(parent.nodes.map((n) => n.kind))].sort()).toEqual([...FLOW_NODE_KINDS].sort());
  });

  it("each node's responseDelta is the facts it produced, its requestScope every fact upstream", async () => {
    const runs = [
      await api.post(`${B}/rulesets/every-kind/dry-run`, {
        inputs: { age: 30, income: 50_000, name: 'Ann' },
      }),
      await api.post(`${B}/rulesets/every-kind/dry-run`, { inputs: { age: 12, income: 0, name: 'Bo' } }),
    ];
    const checked = new Set<string>();
    for (const run of runs) {
      expect(run.status).toBe(200);
      expect(run.body.errors).toEqual([]);
      const producedBefore: string[] = [];
      for (const trace of run.body.traces) {
        const node = parent.nodes.find((n) => n.id === trace.ruleName)!;
        expect(trace.kind).toBe(node.kind);
        const contract = await api.get(`${B}/rule-flow/every-kind/nodes/${node.id}/authoring-contract`);
        expect(contract.status).toBe(200);
        const produced = Object.keys(trace.outputs ?? {}).sort();
        if (trace.skipped) expect(produced).toEqual([]); // a connector on a dry-run
        expect({ node: node.id, delta: paths(contract.body.responseDelta) }).toEqual({
          node: node.id,
          delta: produced,
        });
        const scope = paths(contract.body.requestScope);
        for (const fact of producedBefore)
          expect({ node: node.id, scope }).toEqual({ node: node.id, scope: expect.arrayContaining([fact]) });
        producedBefore.push(...produced);
        checked.add(node.id);
      }
      // the flow's response contract holds every output fact
      const flow = await api.get(`${B}/flow-contracts/every-kind`);
      expect(paths(flow.body.response)).toEqual(expect.arrayContaining(Object.keys(run.body.outputFacts)));
    }
    expect([...checked].sort()).toEqual(parent.nodes.map((n) => n.id).sort());
  });

  it("a sub flow's facts are the child's response (merged) or its output mapping (typed from the child)", async () => {
    const whole = await api.get(`${B}/rule-flow/every-kind/nodes/whole/authoring-contract`);
    expect(paths(whole.body.responseDelta)).toEqual(['note', 'score']);
    const mapped = await api.get(`${B}/rule-flow/every-kind/nodes/mapped/authoring-contract`);
    expect(mapped.body.responseDelta.fields).toEqual([{ path: 'childScore', dataType: 'any' }]);
    const greet = await api.get(`${B}/rule-flow/every-kind/nodes/greet/authoring-contract`);
    expect(paths(greet.body.requestScope)).toEqual(
      expect.arrayContaining(['score', 'note', 'childScore', 'band']),
    );
    expect(greet.body.responseDelta.fields).toEqual([{ path: 'message', dataType: 'string' }]);
    const flow = await api.get(`${B}/flow-contracts/every-kind`);
    const nodes = Object.fromEntries(flow.body.nodes.map((n: any) => [n.nodeId, n]));
    expect(nodes.whole).toMatchObject({ kind: 'sub-flow', resolvedFrom: 'derived' });
    expect(paths(nodes.whole.outputs)).toEqual(['note', 'score']);
  });
});
