export { compileFlowGraph, compileValidFlowGraph } from './flow-graph';
export {
  FLOW_EDGE_KINDS,
  FLOW_GRAPH_SCHEMA,
  validateFlowGraph,
  type FlowEdge,
  type FlowEdgeKind,
  type FlowGraph,
  type FlowNode,
} from './contract';
export {
  FlowCompileError,
  type FlowNodeContract,
  type FlowNodeDocument,
  type FlowNodeKindDefinition,
  type FlowValidationContext,
} from './node-kind';
export { FLOW_NODE_KIND_DEFINITIONS, FLOW_NODE_KINDS, flowNodeKind, type FlowNodeKind } from './nodes';
export type { NodeRunner, Outcome, RunState } from './runtime';
