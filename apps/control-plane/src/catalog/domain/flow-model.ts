import {
  embeddedTable,
  flowNodeKind,
  type EmbeddedTable,
  type RuleContractField,
} from '@arbiter/rule-engine';
import { dataTypeOfValue } from './contract-fields';

/**
 * A shape-independent view of a stored rule set for contract composition: its declared inputs and its
 * nodes (flow-graph nodes, code-based rules, rules of the rules form / legacy JSON), each with its
 * rule code, the facts it is known to produce, its direct predecessors and what it references.
 *
 * Flow-graph nodes are read through the rule engine's node-kind registry (each kind's `contract`).
 *
 * Predecessors: flow graph = sources of edges into the node; code-based = the previous enabled rule
 * (each rule sees the outputs of the ones before it); rules form / legacy = none (every rule reads the
 * input facts only).
 */
export interface FlowModelNode {
  id: string;
  kind: string;
  name?: string;
  /** Code-based rule code or connector code; null otherwise. */
  ruleCode: string | null;
  /** `outputs` declared on a flow-graph node (undefined when the node declares none). */
  declaredOutputs?: RuleContractField[];
  /** Facts derived from the node's configuration (output variable, embedded table outputs, rule output). */
  derivedOutputs: RuleContractField[];
  predecessors: string[];
  /** Decision tables the node evaluates (`name`, or `id:<id>` for a reference by id). */
  tables: string[];
  subFlows: string[];
  /** A sub-flow node: the workflow whose outputs are its facts (see `FlowNodeContract.subFlowOutputs`). */
  subFlowOutputs?: { workflowName: string; version?: number; mapping: Record<string, string> | null };
}

export interface FlowModel {
  shape: string;
  /** Inputs the document declares (flow graph `inputs`); undefined when it declares none. */
  inputs?: RuleContractField[];
  nodes: FlowModelNode[];
  /** Decision tables defined inside the document (flow nodes' `config.table`, rules form `decisionTables`). */
  embeddedTables: EmbeddedTable[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

function contractFields(value: unknown): RuleContractField[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter((f): f is Json => isObject(f) && typeof f.path === 'string')
    .map((f) => ({
      path: f.path as string,
      dataType: (f.dataType as RuleContractField['dataType']) ?? 'any',
    }));
}

/** A flow-graph node: what its kind's registry entry derives from its configuration. */
function flowGraphNode(node: Json, tables: EmbeddedTable[]): FlowModelNode {
  const contract = flowNodeKind(node.kind)?.contract(isObject(node.config) ? node.config : {});
  tables.push(...(contract?.embeddedTables ?? []));
  return {
    id: String(node.id),
    kind: String(node.kind),
    ...(text(node.name) ? { name: node.name as string } : {}),
    ruleCode: contract?.ruleCode ?? null,
    declaredOutputs: contractFields(node.outputs),
    derivedOutputs: contract?.derivedOutputs ?? [],
    predecessors: [],
    tables: contract?.tables ?? [],
    subFlows: contract?.subFlows ?? [],
    ...(contract?.subFlowOutputs ? { subFlowOutputs: contract.subFlowOutputs } : {}),
  };
}

function fromFlowGraph(doc: Json): FlowModel {
  const tables: EmbeddedTable[] = [];
  const raw = asArray(doc.nodes).filter(isObject);
  const nodes = raw.map((n) => flowGraphNode(n, tables));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  raw.forEach((n, i) => {
    for (const edge of asArray(n.edges).filter(isObject)) {
      const target = byId.get(String(edge.target));
      if (target && !target.predecessors.includes(nodes[i].id)) target.predecessors.push(nodes[i].id);
    }
  });
  return { shape: 'flow-graph', inputs: contractFields(doc.inputs), nodes, embeddedTables: tables };
}

function fromCodeBased(doc: Json): FlowModel {
  const nodes: FlowModelNode[] = [];
  for (const rule of asArray(doc.rules).filter(isObject)) {
    if (rule.enabled === false || !text(rule.code)) continue;
    const previous = nodes[nodes.length - 1];
    nodes.push({
      id: text(rule.id) ?? (rule.code as string),
      kind: 'code-rule',
      ...(text(rule.name) ? { name: rule.name as string } : {}),
      ruleCode: rule.code as string,
      derivedOutputs: [],
      predecessors: previous ? [previous.id] : [],
      tables: [],
      subFlows: [],
    });
  }
  return { shape: 'code-based', inputs: contractFields(doc.inputs), nodes, embeddedTables: [] };
}

function fromRulesForm(doc: Json): FlowModel {
  const tables = asArray(doc.decisionTables)
    .map(embeddedTable)
    .filter((t): t is EmbeddedTable => !!t);
  const nodes = asArray(doc.rules)
    .filter(isObject)
    .map((rule) => ({
      id: String(rule.id),
      kind: 'rule',
      ...(text(rule.name) ? { name: rule.name as string } : {}),
      ruleCode: null,
      derivedOutputs: Object.entries(isObject(rule.output) ? rule.output : {}).map(([path, value]) => ({
        path,
        dataType: dataTypeOfValue(value),
      })),
      predecessors: [],
      tables: [],
      subFlows: [],
    }));
  return { shape: 'rules', inputs: contractFields(doc.inputs), nodes, embeddedTables: tables };
}

function fromLegacy(doc: Json): FlowModel {
  const nodes = asArray(doc.Rules)
    .filter(isObject)
    .map((rule) => ({
      id: String(rule.RuleName),
      kind: 'legacy-rule',
      ruleCode: null,
      derivedOutputs: [],
      predecessors: [],
      tables: [],
      subFlows: [],
    }));
  return { shape: 'legacy', nodes, embeddedTables: [] };
}

/** The flow model of a stored (valid) document of the given shape. */
export function buildFlowModel(doc: Record<string, unknown>, shape: string): FlowModel {
  switch (shape) {
    case 'flow-graph':
      return fromFlowGraph(doc);
    case 'code-based':
      return fromCodeBased(doc);
    case 'legacy':
      return fromLegacy(doc);
    default:
      return fromRulesForm(doc);
  }
}

/** Every node upstream of `nodeId` (transitive predecessors), in document order. */
export function upstreamOf(model: FlowModel, nodeId: string): FlowModelNode[] {
  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  const seen = new Set<string>();
  const pending = [...(byId.get(nodeId)?.predecessors ?? [])];
  while (pending.length) {
    const id = pending.pop()!;
    if (seen.has(id) || id === nodeId) continue;
    seen.add(id);
    pending.push(...(byId.get(id)?.predecessors ?? []));
  }
  return model.nodes.filter((n) => seen.has(n.id));
}
