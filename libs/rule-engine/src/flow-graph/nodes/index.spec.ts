import { FLOW_GRAPH_SCHEMA } from '../contract';
import { FLOW_NODE_KIND_DEFINITIONS, FLOW_NODE_KINDS, flowNodeKind } from './index';

describe('flow node kind registry', () => {
  it('lists the kinds in the published order', () => {
    expect(FLOW_NODE_KINDS).toEqual([
      'condition',
      'decision-table',
      'sub-flow',
      'connector',
      'javascript-condition',
      'feel-expression',
      'template',
    ]);
  });

  it('finds a kind by name, and nothing for an unknown one', () => {
    for (const definition of FLOW_NODE_KIND_DEFINITIONS)
      expect(flowNodeKind(definition.kind)).toBe(definition);
    expect(flowNodeKind('teleport')).toBeUndefined();
    expect(flowNodeKind(undefined)).toBeUndefined();
    expect(flowNodeKind('toString')).toBeUndefined();
  });

  it("publishes each kind's config schema in the flow-graph schema", () => {
    expect(FLOW_GRAPH_SCHEMA.$defs.node.properties.kind.enum).toEqual(FLOW_NODE_KINDS);
    expect(FLOW_GRAPH_SCHEMA.$defs.node.allOf).toEqual(
      FLOW_NODE_KIND_DEFINITIONS.map((d) => ({
        if: { properties: { kind: { const: d.kind } }, required: ['kind'] },
        then: { properties: { config: d.configSchema } },
      })),
    );
  });

  it('branches on exactly the condition kinds', () => {
    expect(FLOW_NODE_KIND_DEFINITIONS.filter((d) => d.branching).map((d) => d.kind)).toEqual([
      'condition',
      'javascript-condition',
    ]);
  });
});
