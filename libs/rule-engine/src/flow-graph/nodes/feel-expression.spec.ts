import type { Problem } from '../../document/problems';
import { compileFlowGraph } from '../flow-graph';
import { feelExpressionNode } from './feel-expression';

const problems = (config: Record<string, unknown>) => {
  const out: Problem[] = [];
  feelExpressionNode.validate(config, 'nodes[0].config', out, {});
  return out;
};

describe('feel-expression node', () => {
  it('does not branch; its config needs an expression and an output variable', () => {
    expect(feelExpressionNode.branching).toBe(false);
    expect(feelExpressionNode.configSchema).toMatchObject({ required: ['expression', 'outputVariable'] });
  });

  it('validates both fields', () => {
    expect(problems({ expression: 'a + 1', outputVariable: 'b' })).toEqual([]);
    expect(problems({})).toEqual([
      { path: 'nodes[0].config.expression', message: 'required (non-empty string)' },
      { path: 'nodes[0].config.outputVariable', message: 'required (non-empty string)' },
    ]);
    expect(problems({ expression: '1 +', outputVariable: ' ' })).toEqual([
      { path: 'nodes[0].config.expression', message: expect.stringMatching(/^FEEL syntax error/) },
      { path: 'nodes[0].config.outputVariable', message: 'required (non-empty string)' },
    ]);
  });

  it('stores the value (as JSON) under outputVariable; an unasked-for null is a failure', async () => {
    const flow = (expression: string) =>
      compileFlowGraph({
        nodes: [{ id: 'x', kind: 'feel-expression', config: { expression, outputVariable: 'out' } }],
      });
    expect((await (await flow('amount * 2')).evaluate({ amount: 21 })).outputs).toEqual({ out: 42 });
    expect((await (await flow('input.amount')).evaluate({ amount: 1.5 })).outputs).toEqual({ out: 1.5 });
    expect((await (await flow('null')).evaluate({})).outputs).toEqual({ out: null });
    const failed = await (await flow('missing + 1')).evaluate({});
    expect(failed.errors).toEqual([
      { ruleName: 'x', code: 'EXPRESSION_FAILED', message: "'missing + 1' evaluated to null" },
    ]);
    expect(failed.outputs).toEqual({});
  });

  it('derives its output variable for the catalog', () => {
    expect(feelExpressionNode.contract({ expression: '1', outputVariable: 'score' }).derivedOutputs).toEqual([
      { path: 'score', dataType: 'any' },
    ]);
    expect(feelExpressionNode.contract({ expression: '1' }).derivedOutputs).toEqual([]);
  });
});
