import type { DecisionTableDefinition } from '../types';
import type { CompiledRuleSet, ConnectorInvoker, RuleSetCompileContext } from '../rulesets/types';
import { compileFlowGraph } from './flow-graph';
import { FlowCompileError } from './node-kind';

type Edge = { kind: string; target: string };
const node = (id: string, kind: string, config: Record<string, unknown>, edges: Edge[] = []) => ({
  id,
  kind,
  config,
  edges,
});
const next = (target: string): Edge => ({ kind: 'next', target });
const onTrue = (target: string): Edge => ({ kind: 'on-true', target });
const onFalse = (target: string): Edge => ({ kind: 'on-false', target });
const onError = (target: string): Edge => ({ kind: 'on-error', target });
const always = (target: string): Edge => ({ kind: 'always', target });

const riskTable: DecisionTableDefinition = {
  name: 'risk',
  hitPolicy: 'First',
  inputColumns: [{ name: 'age', type: 'number', required: true }],
  outputColumns: [{ name: 'risk', type: 'string' }],
  rows: [
    { id: 'r1', inputConditions: { age: '< 25' }, outputs: { risk: 'high' } },
    { id: 'r2', inputConditions: { age: '>= 25' }, outputs: { risk: 'low' } },
  ],
};

async function compileError(doc: unknown, ctx?: RuleSetCompileContext): Promise<FlowCompileError> {
  try {
    await compileFlowGraph(doc, ctx);
  } catch (error) {
    expect(error).toBeInstanceOf(FlowCompileError);
    return error as FlowCompileError;
  }
  throw new Error('expected a FlowCompileError');
}

describe('compileFlowGraph', () => {
  it('branches on a FEEL condition and runs table, FEEL and template nodes on the taken path', async () => {
    const flow = await compileFlowGraph({
      nodes: [
        node('adult', 'condition', { expression: 'age >= 18' }, [onTrue('risk'), onFalse('refuse')]),
        node('risk', 'decision-table', { table: riskTable }, [next('premium')]),
        node(
          'premium',
          'feel-expression',
          { expression: 'if risk = "high" then 200 else 100', outputVariable: 'premium' },
          [next('message')],
        ),
        node('message', 'template', {
          template: 'Premium {{ premium }} ({{ risk }})',
          outputVariable: 'text',
        }),
        node('refuse', 'feel-expression', { expression: '"minor"', outputVariable: 'refusal' }),
      ],
    });
    const adult = await flow.evaluate({ age: 30 });
    expect(adult.errors).toEqual([]);
    expect(adult.outputs).toEqual({ risk: 'low', premium: 100, text: 'Premium 100 (low)' });
    expect(adult.rulesMatched).toEqual(['adult', 'risk', 'premium', 'message']);
    expect(adult.rulesExecuted).toBe(4);
    expect(adult.sideEffectsApplied).toBe(false);

    const minor = await flow.evaluate({ age: 12 });
    expect(minor.outputs).toEqual({ refusal: 'minor' });
    expect(minor.rulesMatched).toEqual(['refuse']);
    expect(minor.traces.map((t) => [t.ruleName, t.matched, t.failReason])).toEqual([
      ['adult', false, 'condition was false'],
      ['refuse', true, null],
    ]);
  });

  it('traces every executed node with its kind, outputs and a duration', async () => {
    const flow = await compileFlowGraph({
      nodes: [
        node('a', 'feel-expression', { expression: 'x * 2', outputVariable: 'y' }, [next('b')]),
        node('b', 'feel-expression', { expression: 'y + 1', outputVariable: 'z' }),
      ],
    });
    const result = await flow.evaluate({ x: 5 });
    expect(result.outputs).toEqual({ y: 10, z: 11 });
    expect(result.traces).toHaveLength(2);
    expect(result.traces[0]).toMatchObject({
      ruleName: 'a',
      kind: 'feel-expression',
      matched: true,
      outputs: { y: 10 },
    });
    expect(typeof result.traces[1].durationMs).toBe('number');
    const quiet = await flow.evaluate({ x: 5 }, { trace: false });
    expect(quiet.traces).toEqual([]);
    expect(quiet.outputs).toEqual({ y: 10, z: 11 });
  });

  it('starts at `start` when given, and the input is not part of the outputs', async () => {
    const flow = await compileFlowGraph({
      start: 'second',
      nodes: [
        node('first', 'feel-expression', { expression: '1', outputVariable: 'one' }),
        node('second', 'feel-expression', { expression: 'input.n + 1', outputVariable: 'two' }),
      ],
    });
    const result = await flow.evaluate({ n: 1 });
    expect(result.outputs).toEqual({ two: 2 });
    expect(result.rulesMatched).toEqual(['second']);
  });

  describe('edges', () => {
    it('takes on-error when a node fails, and records nothing in errors', async () => {
      const flow = await compileFlowGraph({
        nodes: [
          node('check', 'condition', { expression: 'missing > 3' }, [onTrue('yes'), onError('fallback')]),
          node('yes', 'feel-expression', { expression: '"yes"', outputVariable: 'answer' }),
          node('fallback', 'feel-expression', { expression: '"fallback"', outputVariable: 'answer' }),
        ],
      });
      const result = await flow.evaluate({});
      expect(result.errors).toEqual([]);
      expect(result.outputs).toEqual({ answer: 'fallback' });
      expect(result.traces[0]).toMatchObject({ ruleName: 'check', matched: false });
      expect(result.traces[0].failReason).toMatch(/not a boolean/);
    });

    it('records a failure without on-error in errors and ends that branch', async () => {
      const flow = await compileFlowGraph({
        nodes: [
          node('check', 'condition', { expression: 'missing > 3' }, [onTrue('after')]),
          node('after', 'feel-expression', { expression: '1', outputVariable: 'after' }),
        ],
      });
      const result = await flow.evaluate({});
      expect(result.errors).toEqual([
        expect.objectContaining({ ruleName: 'check', code: 'CONDITION_NOT_BOOLEAN' }),
      ]);
      expect(result.outputs).toEqual({});
    });

    it('continues along `always` after a failure and does not halt', async () => {
      const flow = await compileFlowGraph({
        nodes: [
          node('broken', 'feel-expression', { expression: 'unknown.name', outputVariable: 'x' }, [
            next('skipped'),
            always('cleanup'),
          ]),
          node('skipped', 'feel-expression', { expression: '1', outputVariable: 'skipped' }),
          node('cleanup', 'feel-expression', { expression: '"done"', outputVariable: 'cleanup' }, [
            next('end'),
          ]),
          node('end', 'feel-expression', { expression: 'cleanup + "!"', outputVariable: 'end' }),
        ],
      });
      const result = await flow.evaluate({});
      expect(result.errors.map((e) => [e.ruleName, e.code])).toEqual([['broken', 'EXPRESSION_FAILED']]);
      expect(result.outputs).toEqual({ cleanup: 'done', end: 'done!' });
      expect(result.rulesMatched).toEqual(['cleanup', 'end']);
    });

    it('follows `always` after a success too, alongside `next`', async () => {
      const flow = await compileFlowGraph({
        nodes: [
          node('a', 'feel-expression', { expression: '1', outputVariable: 'a' }, [next('b'), always('c')]),
          node('b', 'feel-expression', { expression: '2', outputVariable: 'b' }),
          node('c', 'feel-expression', { expression: '3', outputVariable: 'c' }),
        ],
      });
      expect((await flow.evaluate({})).outputs).toEqual({ a: 1, b: 2, c: 3 });
    });

    it('runs a node reached twice only once', async () => {
      const flow = await compileFlowGraph({
        nodes: [
          node('a', 'feel-expression', { expression: '1', outputVariable: 'a' }, [next('b'), always('c')]),
          node('b', 'feel-expression', { expression: '2', outputVariable: 'b' }, [next('d')]),
          node('c', 'feel-expression', { expression: '3', outputVariable: 'c' }, [next('d')]),
          node('d', 'feel-expression', { expression: 'b + c', outputVariable: 'd' }),
        ],
      });
      const result = await flow.evaluate({});
      expect(result.outputs).toEqual({ a: 1, b: 2, c: 3, d: 5 });
      expect(result.rulesExecuted).toBe(4);
    });
  });

  describe('decision tables', () => {
    it('stores the outputs under outputVariable when given', async () => {
      const flow = await compileFlowGraph({
        nodes: [node('t', 'decision-table', { table: riskTable, outputVariable: 'scoring' })],
      });
      expect((await flow.evaluate({ age: 20 })).outputs).toEqual({ scoring: { risk: 'high' } });
    });

    it('fetches a referenced table once, at compile time', async () => {
      const resolveDecisionTable = jest.fn(async () => riskTable);
      const flow = await compileFlowGraph(
        { nodes: [node('t', 'decision-table', { tableRef: { name: 'risk', version: 2 } })] },
        { resolveDecisionTable },
      );
      expect(resolveDecisionTable).toHaveBeenCalledWith({ name: 'risk', version: 2 });
      await flow.evaluate({ age: 40 });
      expect((await flow.evaluate({ age: 40 })).outputs).toEqual({ risk: 'low' });
      expect(resolveDecisionTable).toHaveBeenCalledTimes(1);
    });

    it('fails the node when a required input is missing', async () => {
      const flow = await compileFlowGraph({ nodes: [node('t', 'decision-table', { table: riskTable })] });
      const result = await flow.evaluate({});
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0].ruleName).toBe('t');
    });

    it('refuses a reference without a way to fetch it', async () => {
      const e = await compileError({ nodes: [node('t', 'decision-table', { tableRef: { name: 'x' } })] });
      expect(e.problems[0].path).toBe('nodes[0].config.tableRef');
    });
  });

  describe('JavaScript conditions (QuickJS sandbox)', () => {
    it('branches on the script result with input and facts in scope', async () => {
      const flow = await compileFlowGraph({
        nodes: [
          node('base', 'feel-expression', { expression: 'amount * 2', outputVariable: 'doubled' }, [
            next('js'),
          ]),
          node(
            'js',
            'javascript-condition',
            { script: 'return facts.doubled > 100 && input.amount === 60;' },
            [onTrue('big'), onFalse('small')],
          ),
          node('big', 'feel-expression', { expression: '"big"', outputVariable: 'size' }),
          node('small', 'feel-expression', { expression: '"small"', outputVariable: 'size' }),
        ],
      });
      expect((await flow.evaluate({ amount: 60 })).outputs.size).toBe('big');
      expect((await flow.evaluate({ amount: 10 })).outputs.size).toBe('small');
    });

    it('fails the node (clear error in its trace) on an endless loop, and the flow keeps serving', async () => {
      const flow = await compileFlowGraph({
        nodes: [
          node(
            'loop',
            'javascript-condition',
            { script: 'if (input.ok) return true; while (true) {}', timeoutMs: 20 },
            [onTrue('fine'), onError('recover')],
          ),
          node('fine', 'feel-expression', { expression: '"fine"', outputVariable: 'state' }),
          node('recover', 'feel-expression', { expression: '"recovered"', outputVariable: 'state' }),
        ],
      });
      const bad = await flow.evaluate({});
      expect(bad.outputs).toEqual({ state: 'recovered' });
      expect(bad.traces[0].failReason).toMatch(/longer than 20 ms/);
      expect((await flow.evaluate({ ok: true })).outputs).toEqual({ state: 'fine' });
    });

    it('reports a script error code when there is no on-error edge', async () => {
      const flow = await compileFlowGraph({
        nodes: [node('bomb', 'javascript-condition', { script: 'let s = "x"; while (true) s += s;' })],
      });
      const result = await flow.evaluate({});
      expect(result.errors.map((e) => e.code)).toEqual(['SANDBOX_MEMORY']);
    });

    it('refuses a script that does not compile, naming the node', async () => {
      const e = await compileError({ nodes: [node('js', 'javascript-condition', { script: 'return (;' })] });
      expect(e.problems[0].path).toBe('nodes[0].config.script');
      expect(e.message).toMatch(/does not compile/);
    });
  });

  describe('connectors (side effects)', () => {
    const invoker = (impl: ConnectorInvoker['invoke']): ConnectorInvoker & { invoke: jest.Mock } => ({
      invoke: jest.fn(impl),
    });

    it('calls the connector with the mapped input and merges the mapped answer', async () => {
      const connectors = invoker(async (request) => ({ status: 'sent', echo: request.input }));
      const flow = await compileFlowGraph(
        {
          nodes: [
            node('notify', 'connector', {
              connector: 'mailer',
              operation: 'send',
              inputMapping: { to: 'customer.email' },
              outputMapping: { mailStatus: 'status' },
              timeoutMs: 1000,
            }),
          ],
        },
        { connectors },
      );
      const result = await flow.evaluate(
        { customer: { email: 'a@b.c' } },
        { tenantId: 't1', correlationId: 'c1' },
      );
      expect(result.outputs).toEqual({ mailStatus: 'sent' });
      expect(result.sideEffectsApplied).toBe(true);
      expect(connectors.invoke).toHaveBeenCalledWith(
        {
          connector: 'mailer',
          operation: 'send',
          input: { to: 'a@b.c' },
          timeoutMs: 1000,
          tenantId: 't1',
          correlationId: 'c1',
        },
        undefined,
      );
    });

    it('skips the connector when side effects are off (dry-run, shadow) and goes on', async () => {
      const connectors = invoker(async () => ({}));
      const flow = await compileFlowGraph(
        {
          nodes: [
            node('notify', 'connector', { connector: 'mailer' }, [next('after')]),
            node('after', 'feel-expression', { expression: '"after"', outputVariable: 'after' }),
          ],
        },
        { connectors },
      );
      const result = await flow.evaluate({}, { sideEffects: false });
      expect(connectors.invoke).not.toHaveBeenCalled();
      expect(result.sideEffectsApplied).toBe(false);
      expect(result.outputs).toEqual({ after: 'after' });
      expect(result.traces[0]).toMatchObject({ ruleName: 'notify', skipped: true, matched: false });
    });

    it('evaluateNow: no promise when no node waits, a promise once a connector runs; the same result as evaluate', async () => {
      const connectors = invoker(async () => ({ sent: true }));
      const flow = await compileFlowGraph(
        {
          nodes: [
            node('gate', 'condition', { expression: 'notify' }, [onTrue('notify'), onFalse('quiet')]),
            node('notify', 'connector', { connector: 'mailer' }),
            node('quiet', 'feel-expression', { expression: '"quiet"', outputVariable: 'note' }),
          ],
        },
        { connectors },
      );
      const now = flow.evaluateNow({ notify: false }, { trace: false });
      expect(now).not.toBeInstanceOf(Promise);
      expect(now).toEqual(await flow.evaluate({ notify: false }, { trace: false }));
      expect(now).toMatchObject({ outputs: { note: 'quiet' }, rulesMatched: ['quiet'] });
      const waited = flow.evaluateNow({ notify: true }, { trace: false });
      expect(waited).toBeInstanceOf(Promise);
      expect(await waited).toEqual(await flow.evaluate({ notify: true }, { trace: false }));
      expect(await waited).toMatchObject({ outputs: { sent: true }, sideEffectsApplied: true });
      expect(connectors.invoke).toHaveBeenCalledTimes(2);
    });

    it('retries, then fails with CONNECTOR_FAILED', async () => {
      const connectors = invoker(async () => {
        throw new Error('503 from upstream');
      });
      const flow = await compileFlowGraph(
        { nodes: [node('notify', 'connector', { connector: 'mailer', retries: 2 })] },
        { connectors },
      );
      const result = await flow.evaluate({});
      expect(connectors.invoke).toHaveBeenCalledTimes(3);
      expect(result.errors).toEqual([
        { ruleName: 'notify', code: 'CONNECTOR_FAILED', message: "connector 'mailer': 503 from upstream" },
      ]);
    });
  });

  describe('sub flows', () => {
    const child = (outputs: Record<string, unknown>): CompiledRuleSet => {
      const evaluate = jest.fn(async () => ({
        outputs,
        traces: [],
        errors: [],
        rulesMatched: ['x'],
        rulesExecuted: 1,
        sideEffectsApplied: false,
      }));
      return { shape: 'flow-graph', ruleNames: ['x'], evaluate, evaluateNow: evaluate };
    };

    it('runs another workflow with mapped input and output', async () => {
      const sub = child({ score: { value: 7 } });
      const resolveSubFlow = jest.fn(async () => sub);
      const flow = await compileFlowGraph(
        {
          nodes: [
            node('score', 'sub-flow', {
              workflowName: 'scoring',
              version: 3,
              inputMapping: { age: 'applicant.age' },
              outputMapping: { score: 'score.value' },
            }),
          ],
        },
        { resolveSubFlow, workflowName: 'main' },
      );
      const result = await flow.evaluate({ applicant: { age: 44 } });
      expect(resolveSubFlow).toHaveBeenCalledWith('scoring', 3);
      expect(sub.evaluate).toHaveBeenCalledWith(
        { age: 44 },
        expect.objectContaining({ depth: 1, callStack: ['main', 'scoring'] }),
      );
      expect(result.outputs).toEqual({ score: 7 });
    });

    it('refuses a cycle through sub flows', async () => {
      const flows = new Map<string, CompiledRuleSet>();
      const ctx = (name: string): RuleSetCompileContext => ({
        workflowName: name,
        resolveSubFlow: async (workflow) => flows.get(workflow)!,
      });
      flows.set(
        'a',
        await compileFlowGraph({ nodes: [node('call-b', 'sub-flow', { workflowName: 'b' })] }, ctx('a')),
      );
      flows.set(
        'b',
        await compileFlowGraph({ nodes: [node('call-a', 'sub-flow', { workflowName: 'a' })] }, ctx('b')),
      );
      const result = await flows.get('a')!.evaluate({});
      expect(result.errors[0].code).toBe('SUB_FLOW_CYCLE');
      expect(result.errors[0].message).toMatch(/a → b → a/);
    });

    it('refuses nesting deeper than the limit', async () => {
      const resolveSubFlow = jest.fn();
      const flow = await compileFlowGraph(
        { nodes: [node('deep', 'sub-flow', { workflowName: 'other' })] },
        { resolveSubFlow, workflowName: 'main' },
      );
      const result = await flow.evaluate({}, { depth: 8 });
      expect(result.errors[0].code).toBe('SUB_FLOW_DEPTH_EXCEEDED');
      expect(resolveSubFlow).not.toHaveBeenCalled();
    });
  });

  it('stops at the deadline', async () => {
    const flow = await compileFlowGraph({
      nodes: [
        node('a', 'feel-expression', { expression: '1', outputVariable: 'a' }, [next('b')]),
        node('b', 'feel-expression', { expression: '2', outputVariable: 'b' }),
      ],
    });
    const result = await flow.evaluate({}, { deadline: Date.now() - 1 });
    expect(result.errors).toEqual([
      { code: 'DEADLINE_EXCEEDED', message: 'the evaluation ran past its deadline' },
    ]);
    expect(result.outputs).toEqual({});
  });

  describe('compile errors name the place', () => {
    it.each([
      [{ nodes: [] }, 'nodes', /must be a non-empty array/],
      [{ nodes: [node('a', 'teleport', {})] }, 'nodes[0].kind', /unknown node kind 'teleport'/],
      [
        { nodes: [node('a', 'condition', { expression: '1' }, [onTrue('nowhere')])] },
        'nodes[0].edges[0].target',
        /unknown node 'nowhere'/,
      ],
      [{ nodes: [node('a', 'condition', { expression: 'a >' })] }, 'nodes[0].config.expression', /./],
      [{ nodes: [node('a', 'template', { template: '{% if x %}' })] }, 'nodes[0].config.template', /./],
      [
        { nodes: [node('a', 'condition', { expression: '1' }), node('a', 'condition', { expression: '1' })] },
        'nodes[1].id',
        /duplicate node id 'a'/,
      ],
      [{ start: 'zz', nodes: [node('a', 'condition', { expression: '1' })] }, 'start', /unknown node 'zz'/],
    ])('%#: %j', async (doc, path, message) => {
      const e = await compileError(doc);
      expect(e.problems[0].path).toBe(path);
      expect(e.problems[0].message).toMatch(message);
    });

    it('refuses a sub flow without a way to resolve it', async () => {
      const e = await compileError({ nodes: [node('s', 'sub-flow', { workflowName: 'x' })] });
      expect(e.problems[0].path).toBe('nodes[0].config');
    });
  });
});
