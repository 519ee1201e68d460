import type { FlowModel } from './flow-model';

/** The execute endpoint a workflow is bound to (our route: the spec leaves the direct execution endpoint open). */
export const EXECUTE_PATH_TEMPLATE = '/api/v1/rule-engine/execute/{workflowName}';

/** Which workflow an execute endpoint runs, and what that workflow uses. */
export interface EndpointBinding {
  method: 'POST';
  path: string;
  workflowName: string;
  activeVersion: number;
  shape: string;
  ruleCodes: string[];
  decisionTables: string[];
  subFlows: string[];
}

export interface CatalogGraphNode {
  /** `api:POST /api/v1/…`, `workflow:<name>`, `rule:<code>`, `table:<name>`. */
  id: string;
  type: 'api' | 'workflow' | 'rule' | 'table';
  label: string;
}

export interface CatalogGraphEdge {
  from: string;
  to: string;
  /** api → workflow `executes`; workflow → rule `uses-rule`, → table `uses-table`, → workflow `calls-sub-flow`. */
  kind: 'executes' | 'uses-rule' | 'uses-table' | 'calls-sub-flow';
}

export interface CatalogGraph {
  nodes: CatalogGraphNode[];
  edges: CatalogGraphEdge[];
}

const distinctSorted = (values: string[]) => [...new Set(values)].sort((a, b) => a.localeCompare(b));

export function bindingOf(workflowName: string, activeVersion: number, model: FlowModel): EndpointBinding {
  return {
    method: 'POST',
    path: EXECUTE_PATH_TEMPLATE.replace('{workflowName}', encodeURIComponent(workflowName)),
    workflowName,
    activeVersion,
    shape: model.shape,
    ruleCodes: distinctSorted(model.nodes.flatMap((n) => (n.ruleCode ? [n.ruleCode] : []))),
    decisionTables: distinctSorted([
      ...model.nodes.flatMap((n) => n.tables),
      ...model.embeddedTables.map((t) => t.name),
    ]),
    subFlows: distinctSorted(model.nodes.flatMap((n) => n.subFlows)),
  };
}

/** The binding graph: apis → workflows → rules / tables / sub flows (nodes and edges each listed once). */
export function graphOf(bindings: EndpointBinding[]): CatalogGraph {
  const nodes = new Map<string, CatalogGraphNode>();
  const edges = new Map<string, CatalogGraphEdge>();
  const node = (type: CatalogGraphNode['type'], label: string) => {
    const id = `${type}:${label}`;
    if (!nodes.has(id)) nodes.set(id, { id, type, label });
    return id;
  };
  const edge = (from: string, to: string, kind: CatalogGraphEdge['kind']) =>
    edges.set(`${from}|${kind}|${to}`, { from, to, kind });
  for (const b of bindings) {
    const workflow = node('workflow', b.workflowName);
    edge(node('api', `${b.method} ${b.path}`), workflow, 'executes');
    for (const code of b.ruleCodes) edge(workflow, node('rule', code), 'uses-rule');
    for (const table of b.decisionTables) edge(workflow, node('table', table), 'uses-table');
    for (const sub of b.subFlows) edge(workflow, node('workflow', sub), 'calls-sub-flow');
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}
