import type { Problem } from '../../document/problems';
import { compileFlowGraph } from '../flow-graph';
import { javascriptConditionNode } from './javascript-condition';

const problems = (config: Record<string, unknown>) => {
  const out: Problem[] = [];
  javascriptConditionNode.validate(config, 'nodes[0].config', out, {});
  return out;
};

describe('javascript-condition node', () => {
  it('branches; its config needs a script', () => {
    expect(javascriptConditionNode.branching).toBe(true);
    expect(javascriptConditionNode.configSchema).toMatchObject({ required: ['script'] });
  });

  it('syntax-checks the body as a function body, with the line of the error', () => {
    expect(problems({ script: 'return input.age >= 18;' })).toEqual([]);
    expect(problems({ script: ' ' })).toEqual([
      { path: 'nodes[0].config.script', message: 'required (non-empty string)' },
    ]);
    expect(problems({ script: 'const a = 1;\nreturn (;' })).toEqual([
      {
        path: 'nodes[0].config.script',
        message: expect.stringMatching(/^JavaScript syntax error at line 2: /),
      },
    ]);
    expect(problems({ script: 'return true }, steal(), function () {' })[0].message).toMatch(
      /^JavaScript syntax error at line 1: Unexpected token/,
    );
  });

  it('runs in the sandbox with input and facts, and branches on the answer', async () => {
    const flow = await compileFlowGraph({
      nodes: [
        {
          id: 'js',
          kind: 'javascript-condition',
          config: { script: 'return input.age >= 18 && facts.age === input.age;' },
          edges: [
            { kind: 'on-true', target: 'yes' },
            { kind: 'on-false', target: 'no' },
          ],
        },
        { id: 'yes', kind: 'feel-expression', config: { expression: 'true', outputVariable: 'adult' } },
        { id: 'no', kind: 'feel-expression', config: { expression: 'false', outputVariable: 'adult' } },
      ],
    });
    expect((await flow.evaluate({ age: 30 })).outputs).toEqual({ adult: true });
    expect((await flow.evaluate({ age: 3 })).outputs).toEqual({ adult: false });
  });

  it('contributes nothing to the catalog', () => {
    expect(javascriptConditionNode.contract({ script: 'return true' }).derivedOutputs).toEqual([]);
  });
});
