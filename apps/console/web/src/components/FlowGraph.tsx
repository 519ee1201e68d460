import { Background, Controls, Edge, MarkerType, Node, ReactFlow } from '@xyflow/react';
import { useMemo } from 'react';

interface FlowNode {
  id: string;
  kind: string;
  edges?: { kind: string; target: string }[];
}

const EDGE_COLOURS: Record<string, string> = {
  next: '#364fc7',
  'on-true': '#2b8a3e',
  'on-false': '#c92a2a',
  'on-error': '#e8590c',
  always: '#495057',
};

/** Lays the flow out in layers (breadth-first from `start`) and draws it with React Flow. */
export function layoutFlow(doc: { start?: string; nodes?: FlowNode[] }): { nodes: Node[]; edges: Edge[] } {
  const list = doc.nodes ?? [];
  const byId = new Map(list.map((n) => [n.id, n]));
  const depth = new Map<string, number>();
  const queue: string[] = [];
  const start = doc.start && byId.has(doc.start) ? doc.start : list[0]?.id;
  if (start) {
    depth.set(start, 0);
    queue.push(start);
  }
  while (queue.length) {
    const id = queue.shift()!;
    for (const edge of byId.get(id)?.edges ?? []) {
      if (!byId.has(edge.target) || depth.has(edge.target)) continue;
      depth.set(edge.target, depth.get(id)! + 1);
      queue.push(edge.target);
    }
  }
  let orphan = Math.max(0, ...depth.values()) + 1;
  for (const n of list) if (!depth.has(n.id)) depth.set(n.id, orphan++);
  const perLayer = new Map<number, number>();
  const nodes: Node[] = list.map((n) => {
    const layer = depth.get(n.id)!;
    const slot = perLayer.get(layer) ?? 0;
    perLayer.set(layer, slot + 1);
    return {
      id: n.id,
      position: { x: slot * 220, y: layer * 110 },
      data: { label: `${n.id} · ${n.kind}` },
      style: {
        border: n.id === start ? '2px solid #364fc7' : '1px solid #868e96',
        background: '#fff',
        color: '#212529',
        fontSize: 13,
        width: 190,
      },
      ariaLabel: `node ${n.id}, kind ${n.kind}`,
    };
  });
  const edges: Edge[] = list.flatMap((n) =>
    (n.edges ?? []).map((e, i) => ({
      id: `${n.id}-${e.kind}-${e.target}-${i}`,
      source: n.id,
      target: e.target,
      label: e.kind,
      style: { stroke: EDGE_COLOURS[e.kind] ?? '#495057' },
      labelStyle: { fill: '#212529', fontSize: 12 },
      markerEnd: { type: MarkerType.ArrowClosed, color: EDGE_COLOURS[e.kind] ?? '#495057' },
    })),
  );
  return { nodes, edges };
}

export function FlowGraph({ document }: { document: any }) {
  const { nodes, edges } = useMemo(() => layoutFlow(document ?? {}), [document]);
  return (
    <div style={{ height: 420, border: '1px solid #dee2e6', borderRadius: 4 }} data-testid="flow-graph">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        fitView
        nodesDraggable={false}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
