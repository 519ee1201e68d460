import type { Problem } from '../../document/problems';
import type { CompiledRuleSet, RuleSetCompileContext } from '../../rulesets/types';
import { compileFlowGraph } from '../flow-graph';
import { FlowCompileError } from '../node-kind';
import { subFlowNode } from './sub-flow';

const problems = (config: Record<string, unknown>, workflowName?: string) => {
  const out: Problem[] = [];
  subFlowNode.validate(config, 'nodes[0].config', out, { workflowName });
  return out;
};

describe('sub-flow node', () => {
  it('does not branch; its config needs a workflow name', () => {
    expect(subFlowNode.branching).toBe(false);
    expect(subFlowNode.configSchema).toMatchObject({ required: ['workflowName'] });
  });

  it('validates the name, a pinned version, the mappings and calls to itself', () => {
    expect(
      problems({ workflowName: 'child', version: 2, inputMapping: { a: 'x.y' }, outputMapping: {} }),
    ).toEqual([]);
    expect(problems({})).toEqual([
      { path: 'nodes[0].config.workflowName', message: 'required (non-empty string)' },
    ]);
    expect(problems({ workflowName: 'me' }, 'me')).toEqual([
      { path: 'nodes[0].config.workflowName', message: "a flow cannot call itself ('me')" },
    ]);
    expect(problems({ workflowName: 'c', version: 1.5, inputMapping: { a: 1 }, outputMapping: 'x' })).toEqual(
      [
        { path: 'nodes[0].config.version', message: 'must be a positive integer' },
        { path: 'nodes[0].config.inputMapping', message: 'must be an object of strings' },
        { path: 'nodes[0].config.outputMapping', message: 'must be an object of strings' },
      ],
    );
  });

  const child = (outputs: Record<string, unknown>, seen: unknown[] = []): CompiledRuleSet =>
    ({
      shape: 'flow-graph',
      ruleNames: [],
      evaluate: async (facts: Record<string, unknown>) => {
        seen.push(facts);
        return {
          outputs,
          traces: [],
          errors: [],
          rulesMatched: [],
          rulesExecuted: 1,
          sideEffectsApplied: false,
        };
      },
    }) as unknown as CompiledRuleSet;

  it('maps facts in and out of the child, resolved at run time (pinned version passed on)', async () => {
    const seen: unknown[] = [];
    const resolveSubFlow = jest.fn(async () => child({ result: { score: 7 } }, seen));
    const ctx: RuleSetCompileContext = { workflowName: 'parent', resolveSubFlow };
    const flow = await compileFlowGraph(
      {
        nodes: [
          {
            id: 's',
            kind: 'sub-flow',
            config: {
              workflowName: 'scoring',
              version: 3,
              inputMapping: { age: 'applicant.age' },
              outputMapping: { score: 'result.score' },
            },
          },
        ],
      },
      ctx,
    );
    expect(resolveSubFlow).not.toHaveBeenCalled();
    expect((await flow.evaluate({ applicant: { age: 30 } })).outputs).toEqual({ score: 7 });
    expect(resolveSubFlow).toHaveBeenCalledWith('scoring', 3);
    expect(seen).toEqual([{ age: 30 }]);
  });

  it('refuses cycles and depth at run time, and needs a way to resolve', async () => {
    const doc = { nodes: [{ id: 's', kind: 'sub-flow', config: { workflowName: 'a' } }] };
    const flow = await compileFlowGraph(doc, { workflowName: 'b', resolveSubFlow: async () => child({}) });
    expect((await flow.evaluate({}, { callStack: ['a', 'b'] })).errors[0].code).toBe('SUB_FLOW_CYCLE');
    expect((await flow.evaluate({}, { depth: 8 })).errors[0].code).toBe('SUB_FLOW_DEPTH_EXCEEDED');
    await expect(compileFlowGraph(doc)).rejects.toEqual(expect.any(FlowCompileError));
  });

  it('names the called workflow for the catalog', () => {
    expect(subFlowNode.contract({ workflowName: 'scoring' })).toMatchObject({
      subFlows: ['scoring'],
      tables: [],
    });
    expect(subFlowNode.contract({}).subFlows).toEqual([]);
  });
});
