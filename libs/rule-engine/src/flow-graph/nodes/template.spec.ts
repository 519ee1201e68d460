import type { Problem } from '../../document/problems';
import { compileFlowGraph } from '../flow-graph';
import { templateNode } from './template';

const problems = (config: Record<string, unknown>) => {
  const out: Problem[] = [];
  templateNode.validate(config, 'nodes[0].config', out, {});
  return out;
};

describe('template node', () => {
  it('does not branch; its config needs a template and an output variable', () => {
    expect(templateNode.branching).toBe(false);
    expect(templateNode.configSchema).toMatchObject({ required: ['template', 'outputVariable'] });
  });

  it('parses the template with the engine that renders it', () => {
    expect(problems({ template: 'Dear {{ name | upcase }}', outputVariable: 'text' })).toEqual([]);
    expect(problems({ template: '', outputVariable: 'text' })).toEqual([]);
    expect(problems({ outputVariable: 'text' })).toEqual([
      { path: 'nodes[0].config.template', message: 'required (string)' },
    ]);
    expect(problems({ template: '{{ a | nofilter }}' })).toEqual([
      { path: 'nodes[0].config.template', message: expect.stringMatching(/^template: undefined filter/) },
      { path: 'nodes[0].config.outputVariable', message: 'required (non-empty string)' },
    ]);
    expect(problems({ template: '{% render "x" %}', outputVariable: 't' })[0].message).toMatch(
      /'render' tag is not allowed/,
    );
  });

  it('renders over the working facts, including facts produced before it', async () => {
    const flow = await compileFlowGraph({
      nodes: [
        {
          id: 'double',
          kind: 'feel-expression',
          config: { expression: 'n * 2', outputVariable: 'twice' },
          edges: [{ kind: 'next', target: 'say' }],
        },
        {
          id: 'say',
          kind: 'template',
          config: { template: '{{ name }}: {{ twice }}', outputVariable: 'text' },
        },
      ],
    });
    expect((await flow.evaluate({ name: 'Ann', n: 4 })).outputs).toEqual({ twice: 8, text: 'Ann: 8' });
  });

  it('derives a string output for the catalog', () => {
    expect(templateNode.contract({ template: 'x', outputVariable: 'text' }).derivedOutputs).toEqual([
      { path: 'text', dataType: 'string' },
    ]);
  });
});
