import { validateFlowGraph } from '../flow-graph/contract';
import { diffRules } from './rules-of';
import { detectShape } from './shape';

describe('validateFlowGraph', () => {
  const node = (id: string, edges: { kind: string; target: string }[] = []) => ({
    id,
    kind: 'feel-expression',
    config: { expression: '1 + 1', outputVariable: id },
    edges,
  });

  it('reports dangling edges with their path', () => {
    expect(
      validateFlowGraph({
        nodes: [node('a'), node('b'), node('c'), node('d', [{ kind: 'next', target: 'x' }])],
      }),
    ).toEqual([{ path: 'nodes[3].edges[0].target', message: "unknown node 'x'" }]);
  });

  it('finds cycles and names them', () => {
    const problems = validateFlowGraph({
      nodes: [node('a', [{ kind: 'next', target: 'b' }]), node('b', [{ kind: 'always', target: 'a' }])],
    });
    expect(problems).toEqual([{ path: 'nodes[1].edges[0].target', message: 'cycle: a → b → a' }]);
  });

  it('refuses a JavaScript body that closes its function early, and says where', () => {
    const [problem] = validateFlowGraph({
      nodes: [
        {
          id: 'js',
          kind: 'javascript-condition',
          config: { script: 'return true }, steal(), function () {' },
        },
      ],
    });
    expect(problem.path).toBe('nodes[0].config.script');
    expect(problem.message).toMatch(/^JavaScript syntax error at line 1: Unexpected token/);
    expect(
      validateFlowGraph({
        nodes: [{ id: 'js', kind: 'javascript-condition', config: { script: 'return input.age >= 18;' } }],
      }),
    ).toEqual([]);
  });

  it('parses templates with the engine: unknown filters and file tags are refused', () => {
    const problems = (template: string) =>
      validateFlowGraph({
        nodes: [{ id: 't', kind: 'template', config: { template, outputVariable: 'text' } }],
      });
    expect(problems('Dear {{ name | upcase }}{% if vip %}!{% endif %}')).toEqual([]);
    expect(problems('{{ name | nofilter }}')[0]).toEqual({
      path: 'nodes[0].config.template',
      message: expect.stringMatching(/^template: undefined filter: nofilter/),
    });
    expect(problems('{% include "secrets" %}')[0].message).toMatch(/'include' tag is not allowed/);
    expect(problems('{% if x %}open')[0].message).toMatch(/not closed/);
  });

  it('reports FEEL syntax errors with line and column', () => {
    const [problem] = validateFlowGraph({
      nodes: [{ id: 'a', kind: 'condition', config: { expression: 'x >' } }],
    });
    expect(problem.path).toBe('nodes[0].config.expression');
    expect(problem.message).toMatch(/^FEEL syntax error at line 1, column \d+/);
  });

  it('detects the shape of each accepted document', () => {
    expect(detectShape({ WorkflowName: 'w', Rules: [] })).toBe('legacy');
    expect(detectShape({ nodes: [] })).toBe('flow-graph');
    expect(detectShape({ rules: [{ code: 'X' }] })).toBe('code-based');
    expect(detectShape({ rules: [{ id: 'a', condition: 'x' }] })).toBe('rules');
    expect(detectShape({ type: 'nope' })).toBeNull();
  });

  it('diffs by rule id, field by field', () => {
    expect(
      diffRules(1, [{ id: 'a', name: 'A', condition: 'x' }], 2, [
        { id: 'a', name: 'A2', condition: 'x' },
        { id: 'b', name: 'B' },
      ]),
    ).toEqual({
      fromVersion: 1,
      toVersion: 2,
      changes: {
        added: [{ id: 'b', name: 'B' }],
        modified: [{ id: 'a', name: 'A2', fieldChanges: { name: { old: 'A', new: 'A2' } } }],
        removed: [],
      },
    });
  });
});
