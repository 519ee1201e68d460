import type { FlowNodeKindDefinition } from '../node-kind';
import { conditionNode } from './condition';
import { connectorNode } from './connector';
import { decisionTableNode } from './decision-table';
import { feelExpressionNode } from './feel-expression';
import { javascriptConditionNode } from './javascript-condition';
import { subFlowNode } from './sub-flow';
import { templateNode } from './template';

/**
 * The flow node kinds, one file each. Adding a kind: write `nodes/<kind>.ts` exporting its
 * `FlowNodeKindDefinition` and add it here; the schema, the validation, the compiler and the catalog
 * read this list. The order is the published one (`GET /api/v1/rule-flow/contract`).
 */
export const FLOW_NODE_KIND_DEFINITIONS = [
  conditionNode,
  decisionTableNode,
  subFlowNode,
  connectorNode,
  javascriptConditionNode,
  feelExpressionNode,
  templateNode,
] as const;

export type FlowNodeKind = (typeof FLOW_NODE_KIND_DEFINITIONS)[number]['kind'];

export const FLOW_NODE_KINDS: readonly FlowNodeKind[] = FLOW_NODE_KIND_DEFINITIONS.map((d) => d.kind);

const BY_KIND = new Map<string, FlowNodeKindDefinition>(FLOW_NODE_KIND_DEFINITIONS.map((d) => [d.kind, d]));

/** The definition of a node kind; undefined for a kind nobody registered. */
export function flowNodeKind(kind: unknown): FlowNodeKindDefinition | undefined {
  return typeof kind === 'string' ? BY_KIND.get(kind) : undefined;
}
