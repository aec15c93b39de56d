import type { XYPosition } from '@xyflow/react';
import type { ProgramEdge, ProgramNode } from '../model/graph';
import { change, defineAction, refuse } from './types';

export const DEFAULT_NODE_SIZE = { width: 240, height: 132 };

type ElkNode = {
  id: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  children?: ElkNode[];
};
type ElkGraph = ElkNode & {
  layoutOptions?: Record<string, string>;
  edges?: { id: string; sources: string[]; targets: string[] }[];
};
/** The part of elkjs the editor uses; tests pass a stand-in. */
export type ElkLike = { layout: (graph: ElkGraph) => Promise<ElkNode> };

async function defaultElk(): Promise<ElkLike> {
  const { default: ELK } = await import('elkjs/lib/elk.bundled.js');
  return new ELK() as unknown as ElkLike;
}

/** Positions from elk's layered algorithm, left to right (inputs on the left). */
export async function computeLayout(
  nodes: ProgramNode[],
  edges: ProgramEdge[],
  elk?: ElkLike,
): Promise<Record<string, XYPosition>> {
  const engine = elk ?? (await defaultElk());
  const result = await engine.layout({
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.layered.spacing.nodeNodeBetweenLayers': '90',
      'elk.spacing.nodeNode': '48',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
    },
    children: nodes.map((n) => ({
      id: n.id,
      width: n.measured?.width ?? DEFAULT_NODE_SIZE.width,
      height: n.measured?.height ?? DEFAULT_NODE_SIZE.height,
    })),
    edges: edges.map((e) => ({ id: e.id, sources: [e.source], targets: [e.target] })),
  });
  const positions: Record<string, XYPosition> = {};
  for (const child of result.children ?? [])
    positions[child.id] = { x: child.x ?? 0, y: child.y ?? 0 };
  return positions;
}

/** Move modules to computed positions (one undo step). */
export const applyLayout = defineAction<{ positions: Record<string, XYPosition> }>({
  name: 'applyLayout',
  label: 'Auto-layout',
  shortcut: 'L',
  perform: (state, { positions }) => {
    if (state.nodes.length === 0) return refuse('Nothing to lay out.');
    return change({
      nodes: state.nodes.map((n) => {
        const p = positions[n.id];
        return p ? { ...n, position: { x: Math.round(p.x), y: Math.round(p.y) } } : n;
      }),
    });
  },
});
