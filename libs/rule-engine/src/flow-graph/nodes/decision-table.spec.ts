import type { Problem } from '../../document/problems';
import type { DecisionTableDefinition } from '../../types';
import { compileFlowGraph } from '../flow-graph';
import { FlowCompileError } from '../node-kind';
import { decisionTableNode } from './decision-table';

const risk: DecisionTableDefinition = {
  name: 'risk',
  hitPolicy: 'First',
  inputColumns: [{ name: 'age', type: 'number', required: true }],
  outputColumns: [
    { name: 'risk', type: 'string' },
    { name: 'at', type: 'time' },
  ],
  rows: [
    { id: 'r1', inputConditions: { age: '< 25' }, outputs: { risk: 'high', at: '10:00:00' } },
    { id: 'r2', inputConditions: { age: '>= 25' }, outputs: { risk: 'low', at: '11:00:00' } },
  ],
};

const problems = (config: Record<string, unknown>) => {
  const out: Problem[] = [];
  decisionTableNode.validate(config, 'nodes[0].config', out, {});
  return out;
};

describe('decision-table node', () => {
  it('does not branch; its config holds exactly one of table or tableRef', () => {
    expect(decisionTableNode.branching).toBe(false);
    expect(decisionTableNode.configSchema).toMatchObject({
      oneOf: [{ required: ['table'] }, { required: ['tableRef'] }],
    });
  });

  it('validates the embedded table or the reference', () => {
    expect(problems({ table: risk, outputVariable: 'r' })).toEqual([]);
    expect(problems({ tableRef: { name: 'risk', version: 2 } })).toEqual([]);
    expect(problems({ tableRef: { id: 't-1' } })).toEqual([]);
    const one = {
      path: 'nodes[0].config',
      message: 'exactly one of table (embedded) or tableRef (reference) is required',
    };
    expect(problems({})).toEqual([one]);
    expect(problems({ table: risk, tableRef: { name: 'risk' } })).toEqual([one]);
    expect(problems({ tableRef: { version: 1 } })).toEqual([
      { path: 'nodes[0].config.tableRef', message: 'must name the table by id or name' },
    ]);
    expect(problems({ tableRef: { name: 'risk', version: 0 } })).toEqual([
      { path: 'nodes[0].config.tableRef.version', message: 'must be a positive integer' },
    ]);
    const bad = { ...risk, rows: [{ id: 'r1', inputConditions: { age: '< <' }, outputs: { risk: 'x' } }] };
    expect(problems({ table: bad })[0].path).toBe('nodes[0].config.table.rows[r1].age');
  });

  it('stores the outputs under outputVariable, or merges them without one', async () => {
    const run = async (config: Record<string, unknown>) =>
      (
        await (
          await compileFlowGraph({ nodes: [{ id: 't', kind: 'decision-table', config }] })
        ).evaluate({ age: 20 })
      ).outputs;
    expect(await run({ table: risk, outputVariable: 'scoring' })).toEqual({
      scoring: { risk: 'high', at: '10:00:00' },
    });
    expect(await run({ table: risk })).toEqual({ risk: 'high', at: '10:00:00' });
  });

  it('fetches a stored table at compile time, and needs a way to', async () => {
    const resolveDecisionTable = jest.fn(async () => risk);
    const flow = await compileFlowGraph(
      { nodes: [{ id: 't', kind: 'decision-table', config: { tableRef: { name: 'risk' } } }] },
      { resolveDecisionTable },
    );
    expect(resolveDecisionTable).toHaveBeenCalledWith({ name: 'risk' });
    expect((await flow.evaluate({ age: 40 })).outputs).toEqual({ risk: 'low', at: '11:00:00' });
    await expect(
      compileFlowGraph({
        nodes: [{ id: 't', kind: 'decision-table', config: { tableRef: { name: 'risk' } } }],
      }),
    ).rejects.toEqual(expect.any(FlowCompileError));
  });

  it('fails the node (not the flow) when the table cannot evaluate', async () => {
    const flow = await compileFlowGraph({
      nodes: [{ id: 't', kind: 'decision-table', config: { table: risk } }],
    });
    const result = await flow.evaluate({});
    expect(result.errors).toEqual([
      { ruleName: 't', code: 'MISSING_REQUIRED_INPUT', message: expect.any(String) },
    ]);
  });

  it('gives the catalog its table, and outputs from the columns or the output variable', () => {
    expect(decisionTableNode.contract({ table: risk })).toEqual({
      ruleCode: null,
      derivedOutputs: [
        { path: 'risk', dataType: 'string' },
        { path: 'at', dataType: 'string' },
      ],
      tables: ['risk'],
      subFlows: [],
      embeddedTables: [
        {
          name: 'risk',
          inputs: [{ path: 'age', dataType: 'number' }],
          outputs: [
            { path: 'risk', dataType: 'string' },
            { path: 'at', dataType: 'string' },
          ],
        },
      ],
    });
    expect(decisionTableNode.contract({ table: risk, outputVariable: 'r' }).derivedOutputs).toEqual([
      { path: 'r', dataType: 'object' },
    ]);
    expect(decisionTableNode.contract({ tableRef: { id: 't-1' }, outputVariable: 'r' })).toMatchObject({
      tables: ['id:t-1'],
      derivedOutputs: [{ path: 'r', dataType: 'object' }],
      embeddedTables: [],
    });
    expect(decisionTableNode.contract({ tableRef: { name: 'risk' } })).toMatchObject({
      tables: ['risk'],
      derivedOutputs: [],
    });
  });
});
