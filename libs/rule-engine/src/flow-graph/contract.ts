import { isObject, nonEmptyString } from '../document/checks';
import type { Problem } from '../document/problems';
import { FLOW_NODE_KIND_DEFINITIONS, FLOW_NODE_KINDS, flowNodeKind, type FlowNodeKind } from './nodes';

/**
 * The flow-graph rule set (our design; the spec names the node and edge kinds but not the fields).
 *
 * ```json
 * { "type": "flow-graph", "schemaVersion": 1, "start": "age",
 *   "inputs": [{ "path": "applicant.age", "dataType": "number" }],
 *   "nodes": [
 *     { "id": "age", "kind": "condition", "config": { "expression": "applicant.age >= 18" },
 *       "edges": [{ "kind": "on-true", "target": "score" }, { "kind": "on-false", "target": "deny" }] },
 *     { "id": "score", "kind": "decision-table", "config": { "tableRef": { "name": "scoring" } },
 *       "edges": [{ "kind": "next", "target": "notify" }, { "kind": "on-error", "target": "deny" }] },
 *     ...
 *   ] }
 * ```
 *
 * Edges live on their source node. `next` is the success path; `on-true` / `on-false` branch after a
 * condition; `on-error` is taken when the node fails; `always` continues after the node whatever
 * happened (also after a failure) and never halts the flow. A node without edges ends its branch.
 * The graph must be acyclic (loops belong in a sub flow or a connector). Each node kind — its
 * `config` schema and checks, how it runs, what the catalog derives from it — is one file in `nodes/`;
 * this file holds what is common to every node: ids, edges, start, cycles.
 */
export const FLOW_EDGE_KINDS = ['next', 'on-true', 'on-false', 'on-error', 'always'] as const;
export type FlowEdgeKind = (typeof FLOW_EDGE_KINDS)[number];

export interface FlowEdge {
  kind: FlowEdgeKind;
  target: string;
  label?: string;
}

export interface FlowNode {
  id: string;
  kind: FlowNodeKind;
  name?: string;
  config: Record<string, unknown>;
  edges?: FlowEdge[];
}

export interface FlowGraph {
  type?: 'flow-graph';
  schemaVersion?: 1;
  name?: string;
  description?: string;
  start?: string;
  inputs?: { path: string; dataType: string }[];
  nodes: FlowNode[];
}

const ID_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';
const ID = new RegExp(ID_PATTERN);

const contractField = {
  type: 'object',
  required: ['path', 'dataType'],
  additionalProperties: false,
  properties: {
    path: { type: 'string', minLength: 1 },
    dataType: { enum: ['string', 'number', 'boolean', 'date', 'dateTime', 'object', 'array', 'any'] },
  },
};

function nodeSchema(kind: string, config: Readonly<Record<string, unknown>>) {
  return {
    if: { properties: { kind: { const: kind } }, required: ['kind'] },
    then: { properties: { config } },
  };
}

/** JSON Schema (draft 2020-12) of a flow-graph rule set: `GET /api/v1/rule-flow/contract`. */
export const FLOW_GRAPH_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://arbiter.dev/schemas/rule-flow/v1.json',
  title: 'Arbiter rule flow graph',
  description:
    'A flow-graph rule set. Edges live on their source node; the graph must be acyclic. Semantic checks ' +
    'beyond this schema (reported with paths such as nodes[3].edges[0].target): unique node ids, known ' +
    'edge targets, no cycles, FEEL syntax (with line and column), JavaScript syntax, template tags, embedded ' +
    'decision tables, on-true/on-false only on condition kinds.',
  type: 'object',
  required: ['nodes'],
  additionalProperties: false,
  properties: {
    type: { const: 'flow-graph' },
    schemaVersion: { const: 1 },
    name: { type: 'string' },
    description: { type: 'string' },
    start: { type: 'string', pattern: ID_PATTERN, description: 'Entry node id (default: the first node).' },
    inputs: { type: 'array', items: contractField, description: 'Flow input contract (request scope).' },
    nodes: { type: 'array', minItems: 1, items: { $ref: '#/$defs/node' } },
  },
  $defs: {
    edge: {
      type: 'object',
      required: ['kind', 'target'],
      additionalProperties: false,
      properties: {
        kind: { enum: [...FLOW_EDGE_KINDS] },
        target: { type: 'string', pattern: ID_PATTERN },
        label: { type: 'string' },
      },
    },
    node: {
      type: 'object',
      required: ['id', 'kind', 'config'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', pattern: ID_PATTERN },
        kind: { enum: [...FLOW_NODE_KINDS] },
        name: { type: 'string' },
        description: { type: 'string' },
        config: { type: 'object' },
        outputs: {
          type: 'array',
          items: contractField,
          description: 'Facts this node produces (response delta).',
        },
        edges: { type: 'array', items: { $ref: '#/$defs/edge' } },
      },
      allOf: FLOW_NODE_KIND_DEFINITIONS.map((d) => nodeSchema(d.kind, d.configSchema)),
    },
  },
} as const;

const NODE_KEYS = new Set(['id', 'kind', 'name', 'description', 'config', 'outputs', 'edges']);
const TOP_KEYS = new Set(['type', 'schemaVersion', 'name', 'description', 'start', 'inputs', 'nodes']);

/**
 * Validates a flow graph against the contract and the semantic rules, with precise paths. Returns
 * every problem found (not only the first).
 */
export function validateFlowGraph(doc: unknown, workflowName?: string): Problem[] {
  const problems: Problem[] = [];
  if (!isObject(doc)) return [{ path: '', message: 'must be an object' }];
  for (const key of Object.keys(doc))
    if (!TOP_KEYS.has(key)) problems.push({ path: key, message: 'unknown property' });
  if (doc.schemaVersion !== undefined && doc.schemaVersion !== 1)
    problems.push({ path: 'schemaVersion', message: 'must be 1' });
  if (doc.inputs !== undefined) checkContractFields('inputs', doc.inputs, problems);
  if (!Array.isArray(doc.nodes) || doc.nodes.length === 0) {
    problems.push({ path: 'nodes', message: 'must be a non-empty array' });
    return problems;
  }
  const nodes = doc.nodes as unknown[];
  const index = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (isObject(node) && typeof node.id === 'string') {
      if (index.has(node.id))
        problems.push({
          path: `nodes[${i}].id`,
          message: `duplicate node id '${node.id}' (also nodes[${index.get(node.id)}])`,
        });
      else index.set(node.id, i);
    }
  });
  nodes.forEach((node, i) => checkNode(node, i, index, problems, workflowName));
  if (doc.start !== undefined) {
    if (typeof doc.start !== 'string' || !index.has(doc.start))
      problems.push({ path: 'start', message: `unknown node '${String(doc.start)}'` });
  }
  if (!problems.some((p) => p.path.includes('.edges'))) checkCycles(nodes as FlowNode[], index, problems);
  return problems;
}

function checkContractFields(path: string, value: unknown, problems: Problem[]) {
  if (!Array.isArray(value)) {
    problems.push({ path, message: 'must be an array of { path, dataType }' });
    return;
  }
  const types = contractField.properties.dataType.enum as readonly string[];
  value.forEach((f, i) => {
    if (!isObject(f) || !nonEmptyString(f.path))
      problems.push({ path: `${path}[${i}].path`, message: 'required' });
    else if (!types.includes(f.dataType as string))
      problems.push({ path: `${path}[${i}].dataType`, message: `must be one of ${types.join(', ')}` });
  });
}

function checkNode(
  node: unknown,
  i: number,
  index: Map<string, number>,
  problems: Problem[],
  workflowName?: string,
): void {
  const at = `nodes[${i}]`;
  if (!isObject(node)) {
    problems.push({ path: at, message: 'must be an object' });
    return;
  }
  for (const key of Object.keys(node))
    if (!NODE_KEYS.has(key)) problems.push({ path: `${at}.${key}`, message: 'unknown property' });
  if (typeof node.id !== 'string' || !ID.test(node.id))
    problems.push({ path: `${at}.id`, message: `must be a string matching ${ID_PATTERN}` });
  const definition = flowNodeKind(node.kind);
  if (!definition) {
    problems.push({
      path: `${at}.kind`,
      message: `unknown node kind '${String(node.kind)}' (expected one of ${FLOW_NODE_KINDS.join(', ')})`,
    });
  }
  if (node.outputs !== undefined) checkContractFields(`${at}.outputs`, node.outputs, problems);
  const config = node.config;
  if (!isObject(config)) problems.push({ path: `${at}.config`, message: 'must be an object' });
  else if (definition) definition.validate(config, `${at}.config`, problems, { workflowName });

  if (node.edges === undefined) return;
  if (!Array.isArray(node.edges)) {
    problems.push({ path: `${at}.edges`, message: 'must be an array' });
    return;
  }
  const seen = new Set<string>();
  node.edges.forEach((edge, j) => {
    const ep = `${at}.edges[${j}]`;
    if (!isObject(edge)) {
      problems.push({ path: ep, message: 'must be an object' });
      return;
    }
    const ek = edge.kind as FlowEdgeKind;
    if (!FLOW_EDGE_KINDS.includes(ek)) {
      problems.push({
        path: `${ep}.kind`,
        message: `unknown edge kind '${String(edge.kind)}' (expected one of ${FLOW_EDGE_KINDS.join(', ')})`,
      });
    } else if ((ek === 'on-true' || ek === 'on-false') && !definition?.branching) {
      problems.push({ path: `${ep}.kind`, message: `'${ek}' is only allowed on condition nodes` });
    } else if (ek === 'next' && definition?.branching) {
      problems.push({
        path: `${ep}.kind`,
        message: `a condition node branches with 'on-true' / 'on-false', not 'next'`,
      });
    } else if (seen.has(ek)) {
      problems.push({ path: `${ep}.kind`, message: `duplicate '${ek}' edge on this node` });
    }
    seen.add(ek);
    if (typeof edge.target !== 'string' || !index.has(edge.target)) {
      problems.push({ path: `${ep}.target`, message: `unknown node '${String(edge.target)}'` });
    } else if (edge.target === node.id) {
      problems.push({ path: `${ep}.target`, message: `edge to itself (cycle at '${edge.target}')` });
    }
    for (const key of Object.keys(edge))
      if (!['kind', 'target', 'label'].includes(key))
        problems.push({ path: `${ep}.${key}`, message: 'unknown property' });
  });
}

function checkCycles(nodes: FlowNode[], index: Map<string, number>, problems: Problem[]): void {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (id: string): boolean => {
    state.set(id, 1);
    stack.push(id);
    const i = index.get(id)!;
    const edges = nodes[i].edges ?? [];
    for (let j = 0; j < edges.length; j++) {
      const target = edges[j].target;
      if (state.get(target) === 1) {
        const cycle = [...stack.slice(stack.indexOf(target)), target].join(' → ');
        problems.push({ path: `nodes[${i}].edges[${j}].target`, message: `cycle: ${cycle}` });
        return true;
      }
      if (!state.has(target) && visit(target)) return true;
    }
    stack.pop();
    state.set(id, 2);
    return false;
  };
  for (const node of nodes) if (typeof node.id === 'string' && !state.has(node.id) && visit(node.id)) return;
}
