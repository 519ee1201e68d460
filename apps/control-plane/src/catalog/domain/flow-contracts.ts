import type { RuleContract, RuleContractField } from '@arbiter/rule-engine';
import type { RuleCatalogItem } from './catalog-item';
import { contractOf, unionFields, withoutStructuralFields } from './contract-fields';
import { FlowModel, FlowModelNode, upstreamOf } from './flow-model';

export type CatalogLookup = (code: string) => RuleCatalogItem | undefined;

/**
 * The facts a called workflow answers with (its response contract), by name and pinned version;
 * undefined when it is not known (not stored, not in the catalog, too deep, or a cycle).
 */
export type SubFlowLookup = (workflowName: string, version?: number) => RuleContractField[] | undefined;

/** Key of a sub flow's response in a `SubFlowLookup` map. */
export const subFlowKey = (workflowName: string, version?: number) =>
  `${workflowName}@${version ?? 'current'}`;

const noSubFlows: SubFlowLookup = () => undefined;

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

/**
 * What a sub-flow node produces, from the child's response: with an output mapping, its keys (typed
 * from the child's field at the mapped path when known); without, every fact of the child.
 */
function subFlowFacts(node: FlowModelNode, subFlows: SubFlowLookup): RuleContractField[] {
  const call = node.subFlowOutputs!;
  const child = subFlows(call.workflowName, call.version);
  if (!call.mapping) return child ?? [];
  return Object.entries(call.mapping).map(([path, from]) => ({
    path,
    dataType: child?.find((f) => f.path === from)?.dataType ?? 'any',
  }));
}

/**
 * A node's output facts: manifest (its rule code is in the catalog) → declared `outputs` → derived
 * (from the configuration through the node kind's registry entry; for a sub flow, from the child's
 * response).
 */
export function nodeOutputs(
  flowCode: string,
  node: FlowModelNode,
  lookup: CatalogLookup,
  subFlows: SubFlowLookup = noSubFlows,
): { resolvedFrom: NodeOutputSource; outputs: RuleContract } {
  const item = node.ruleCode ? lookup(node.ruleCode) : undefined;
  if (item) return { resolvedFrom: 'manifest', outputs: item.outputSchema };
  const name = `${flowCode}.${node.id}.outputs`;
  if (node.declaredOutputs)
    return { resolvedFrom: 'declared', outputs: contractOf(name, node.declaredOutputs) };
  const derived = node.subFlowOutputs ? subFlowFacts(node, subFlows) : node.derivedOutputs;
  if (derived.length) return { resolvedFrom: 'derived', outputs: contractOf(name, derived) };
  return { resolvedFrom: 'none', outputs: contractOf(name, []) };
}

/**
 * A node's facts: its outputs without the structural result fields of a rule's envelope (manifest or
 * declared). Facts derived from the configuration are the ones the runtime writes under the names the
 * author chose (a template's `outputVariable: "message"` is a fact), so they are kept as they are.
 */
export function nodeFacts(
  flowCode: string,
  node: FlowModelNode,
  lookup: CatalogLookup,
  subFlows: SubFlowLookup = noSubFlows,
): RuleContractField[] {
  const { resolvedFrom, outputs } = nodeOutputs(flowCode, node, lookup, subFlows);
  return resolvedFrom === 'derived' ? outputs.fields : withoutStructuralFields(outputs.fields);
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
  subFlows: SubFlowLookup = noSubFlows,
): ComposedFlowContract {
  const nodes = model.nodes.map((node) => ({
    nodeId: node.id,
    kind: node.kind,
    ...(node.name ? { name: node.name } : {}),
    ruleCode: node.ruleCode,
    ...nodeOutputs(flowCode, node, lookup, subFlows),
  }));
  return {
    request: contractOf(`${flowCode}.request`, flowInputs(model, lookup)),
    response: contractOf(
      `${flowCode}.response`,
      unionFields(...model.nodes.map((node) => nodeFacts(flowCode, node, lookup, subFlows))),
    ),
    nodes,
  };
}

/**
 * The authoring contract of one node: `requestScope` = flow inputs + facts of every upstream node;
 * `responseDelta` = the node's own facts. Structural result fields of a rule's envelope (success flags,
 * messages, error codes) are facts of neither. Undefined when the node does not exist.
 */
export function composeAuthoringContract(
  flowCode: string,
  model: FlowModel,
  nodeId: string,
  lookup: CatalogLookup,
  subFlows: SubFlowLookup = noSubFlows,
): NodeAuthoringContract | undefined {
  const node = model.nodes.find((n) => n.id === nodeId);
  if (!node) return undefined;
  const upstream = upstreamOf(model, nodeId);
  const upstreamFacts = upstream.map((n) => nodeFacts(flowCode, n, lookup, subFlows));
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
      nodeFacts(flowCode, node, lookup, subFlows),
    ),
    upstreamNodeIds: upstream.map((n) => n.id),
  };
}
