import type { Problem } from '../../document/problems';
import { compileFlowGraph } from '../flow-graph';
import { conditionNode } from './condition';

const problems = (config: Record<string, unknown>) => {
  const out: Problem[] = [];
  conditionNode.validate(config, 'nodes[0].config', out, {});
  return out;
};

describe('condition node', () => {
  it('branches, and its config needs a FEEL expression', () => {
    expect(conditionNode.branching).toBe(true);
    expect(conditionNode.configSchema).toMatchObject({ required: ['expression'] });
  });

  it('validates the expression and the language', () => {
    expect(problems({ expression: 'age >= 18' })).toEqual([]);
    expect(problems({ expression: 'age >= 18', language: 'feel' })).toEqual([]);
    expect(problems({})).toEqual([
      { path: 'nodes[0].config.expression', message: 'required (non-empty string)' },
    ]);
    expect(problems({ expression: 'true', language: 'js' })).toEqual([
      { path: 'nodes[0].config.language', message: "unsupported language 'js' (feel)" },
    ]);
    expect(problems({ expression: 'age >' })[0]).toEqual({
      path: 'nodes[0].config.expression',
      message: expect.stringMatching(/^FEEL syntax error at line 1, column \d+: /),
    });
  });

  it('takes on-true / on-false, and fails on a non-boolean', async () => {
    const flow = await compileFlowGraph({
      nodes: [
        {
          id: 'adult',
          kind: 'condition',
          config: { expression: 'age >= 18' },
          edges: [
            { kind: 'on-true', target: 'yes' },
            { kind: 'on-false', target: 'no' },
          ],
        },
        { id: 'yes', kind: 'feel-expression', config: { expression: '"yes"', outputVariable: 'answer' } },
        { id: 'no', kind: 'feel-expression', config: { expression: '"no"', outputVariable: 'answer' } },
      ],
    });
    expect((await flow.evaluate({ age: 20 })).outputs).toEqual({ answer: 'yes' });
    expect((await flow.evaluate({ age: 10 })).outputs).toEqual({ answer: 'no' });
    const result = await flow.evaluate({});
    expect(result.errors).toEqual([
      { ruleName: 'adult', code: 'CONDITION_NOT_BOOLEAN', message: 'condition gave null, not a boolean' },
    ]);
    expect(result.traces[0]).toMatchObject({ ruleName: 'adult', kind: 'condition', matched: false });
  });

  it('contributes nothing to the catalog', () => {
    expect(conditionNode.contract({ expression: 'true' })).toEqual({
      ruleCode: null,
      derivedOutputs: [],
      tables: [],
      subFlows: [],
      embeddedTables: [],
    });
  });
});
