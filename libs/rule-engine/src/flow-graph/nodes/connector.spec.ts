import type { Problem } from '../../document/problems';
import type { ConnectorInvoker } from '../../rulesets/types';
import { compileFlowGraph } from '../flow-graph';
import { connectorNode } from './connector';

const problems = (config: Record<string, unknown>) => {
  const out: Problem[] = [];
  connectorNode.validate(config, 'nodes[0].config', out, {});
  return out;
};

const doc = (config: Record<string, unknown>) => ({
  nodes: [
    { id: 'call', kind: 'connector', config, edges: [{ kind: 'next', target: 'after' }] },
    { id: 'after', kind: 'feel-expression', config: { expression: '"done"', outputVariable: 'status' } },
  ],
});

describe('connector node', () => {
  it('does not branch; its config needs a connector code', () => {
    expect(connectorNode.branching).toBe(false);
    expect(connectorNode.configSchema).toMatchObject({ required: ['connector'] });
  });

  it('validates the code, the mappings and the timeout', () => {
    expect(
      problems({ connector: 'crm', operation: 'get', inputMapping: { id: 'customer.id' }, timeoutMs: 100 }),
    ).toEqual([]);
    expect(problems({ inputMapping: [], outputMapping: { a: 1 }, timeoutMs: 0 })).toEqual([
      { path: 'nodes[0].config.connector', message: 'required (non-empty string)' },
      { path: 'nodes[0].config.inputMapping', message: 'must be an object of strings' },
      { path: 'nodes[0].config.outputMapping', message: 'must be an object of strings' },
      { path: 'nodes[0].config.timeoutMs', message: 'must be a positive integer' },
    ]);
  });

  it('calls the connector port with the mapped input and maps the answer', async () => {
    const invoke = jest.fn(async () => ({ body: { tier: 'gold' } }));
    const flow = await compileFlowGraph(
      doc({
        connector: 'crm',
        operation: 'lookup',
        inputMapping: { id: 'customer.id' },
        outputMapping: { tier: 'body.tier' },
      }),
      { connectors: { invoke } },
    );
    const result = await flow.evaluate({ customer: { id: 'c1' } }, { tenantId: 't', correlationId: 'k' });
    expect(result.outputs).toEqual({ tier: 'gold', status: 'done' });
    expect(result.sideEffectsApplied).toBe(true);
    expect(invoke).toHaveBeenCalledWith(
      {
        connector: 'crm',
        operation: 'lookup',
        input: { id: 'c1' },
        timeoutMs: 5000,
        tenantId: 't',
        correlationId: 'k',
      },
      undefined,
    );
  });

  it('retries, then fails the node', async () => {
    const invoke = jest.fn(async () => {
      throw new Error('down');
    });
    const flow = await compileFlowGraph(doc({ connector: 'crm', retries: 2 }), { connectors: { invoke } });
    const result = await flow.evaluate({});
    expect(invoke).toHaveBeenCalledTimes(3);
    expect(result.errors).toEqual([
      { ruleName: 'call', code: 'CONNECTOR_FAILED', message: "connector 'crm': down" },
    ]);
  });

  it('is skipped with side effects off, and unavailable without an invoker', async () => {
    const connectors: ConnectorInvoker = { invoke: jest.fn() };
    const flow = await compileFlowGraph(doc({ connector: 'crm' }), { connectors });
    const dry = await flow.evaluate({}, { sideEffects: false });
    expect(connectors.invoke).not.toHaveBeenCalled();
    expect(dry.outputs).toEqual({ status: 'done' });
    expect(dry.traces[0]).toMatchObject({ ruleName: 'call', skipped: true, matched: false });
    const none = await (await compileFlowGraph(doc({ connector: 'crm' }))).evaluate({});
    expect(none.errors[0]).toMatchObject({ ruleName: 'call', code: 'CONNECTOR_UNAVAILABLE' });
  });

  it('gives its connector code to the catalog as the rule code', () => {
    expect(connectorNode.contract({ connector: 'crm' })).toMatchObject({
      ruleCode: 'crm',
      derivedOutputs: [],
    });
    expect(connectorNode.contract({}).ruleCode).toBeNull();
  });
});
