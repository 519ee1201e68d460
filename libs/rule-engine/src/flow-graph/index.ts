export { compileFlowGraph, compileValidFlowGraph } from './flow-graph';
export {
  FLOW_EDGE_KINDS,
  FLOW_GRAPH_SCHEMA,
  FLOW_NODE_KINDS,
  validateFlowGraph,
  type FlowEdge,
  type FlowEdgeKind,
  type FlowGraph,
  type FlowNode,
  type FlowNodeKind,
} from './contract';
export {
  FlowCompileError,
  type FlowNodeContract,
  type FlowNodeDocument,
  type FlowNodeKindDefinition,
  type FlowValidationContext,
} from './node-kind';
export { FLOW_NODE_KIND_DEFINITIONS, flowNodeKind } from './nodes';
export type { NodeRunner, Outcome, RunState } from './runtime';
