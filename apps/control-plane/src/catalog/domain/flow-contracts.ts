import type { RuleContract, RuleContractField } from '@arbiter/rule-engine';
import type { RuleCatalogItem } from './catalog-item';
import { contractOf, unionFields, withoutStructuralFields } from './contract-fields';
import { FlowModel, FlowModelNode, upstreamOf } from './flow-model';

export type CatalogLookup = (code: string) => RuleCatalogItem | undefined;

/** Where a node's output facts came from: the rule's manifest, the node's `outputs`, its configuration. */
export type NodeOutputSource = 'manifest' | 'declared' | 'derived' | 'none';

export interface NodeContract {
  nodeId: string;
  kind: string;
  name?: string;
  ruleCode: string | null;
  resolvedFrom: NodeOutputSource;
  /** Facts the node produces, as resolved (structural result fields included). */
  outputs: RuleContract;
}

export interface ComposedFlowContract {
  request: RuleContract;
  response: RuleContract;
  nodes: NodeContract[];
}

export interface NodeAuthoringContract {
  flowCode: string;
  nodeId: string;
  ruleCode: string | null;
  requestScope: RuleContract;
  responseDelta: RuleContract;
  /** Ours: the nodes whose facts are in the request scope, in document order. */
  upstreamNodeIds: string[];
}

/** A node's output facts: manifest (its rule code is in the catalog) → declared `outputs` → derived. */
export function nodeOutputs(
  flowCode: string,
  node: FlowModelNode,
  lookup: CatalogLookup,
): { resolvedFrom: NodeOutputSource; outputs: RuleContract } {
  const item = node.ruleCode ? lookup(node.ruleCode) : undefined;
  if (item) return { resolvedFrom: 'manifest', outputs: item.outputSchema };
  const name = `${flowCode}.${node.id}.outputs`;
  if (node.declaredOutputs)
    return { resolvedFrom: 'declared', outputs: contractOf(name, node.declaredOutputs) };
  if (node.derivedOutputs.length)
    return { resolvedFrom: 'derived', outputs: contractOf(name, node.derivedOutputs) };
  return { resolvedFrom: 'none', outputs: contractOf(name, []) };
}

/** The flow's inputs: as declared, else the union of the catalog input schemas of its rules. */
export function flowInputs(model: FlowModel, lookup: CatalogLookup): RuleContractField[] {
  if (model.inputs) return unionFields(model.inputs);
  return unionFields(
    ...model.nodes.map((n) => (n.ruleCode ? (lookup(n.ruleCode)?.inputSchema.fields ?? []) : [])),
  );
}

/**
 * Request contract = the flow inputs; response contract = the union of every node's output facts
 * (structural result fields left out); plus each node's own contract.
 */
export function composeFlowContract(
  flowCode: string,
  model: FlowModel,
  lookup: CatalogLookup,
): ComposedFlowContract {
  const nodes = model.nodes.map((node) => ({
    nodeId: node.id,
    kind: node.kind,
    ...(node.name ? { name: node.name } : {}),
    ruleCode: node.ruleCode,
    ...nodeOutputs(flowCode, node, lookup),
  }));
  return {
    request: contractOf(`${flowCode}.request`, flowInputs(model, lookup)),
    response: contractOf(
      `${flowCode}.response`,
      withoutStructuralFields(unionFields(...nodes.map((n) => n.outputs.fields))),
    ),
    nodes,
  };
}

/**
 * The authoring contract of one node: `requestScope` = flow inputs + facts of every upstream node;
 * `responseDelta` = the node's own facts. Structural result fields (success flags, messages, error
 * codes) are facts of neither. Undefined when the node does not exist.
 */
export function composeAuthoringContract(
  flowCode: string,
  model: FlowModel,
  nodeId: string,
  lookup: CatalogLookup,
): NodeAuthoringContract | undefined {
  const node = model.nodes.find((n) => n.id === nodeId);
  if (!node) return undefined;
  const upstream = upstreamOf(model, nodeId);
  const upstreamFacts = upstream.map((n) =>
    withoutStructuralFields(nodeOutputs(flowCode, n, lookup).outputs.fields),
  );
  return {
    flowCode,
    nodeId,
    ruleCode: node.ruleCode,
    requestScope: contractOf(
      `${flowCode}.${nodeId}.requestScope`,
      unionFields(flowInputs(model, lookup), ...upstreamFacts),
    ),
    responseDelta: contractOf(
      `${flowCode}.${nodeId}.responseDelta`,
      withoutStructuralFields(nodeOutputs(flowCode, node, lookup).outputs.fields),
    ),
    upstreamNodeIds: upstream.map((n) => n.id),
  };
}
