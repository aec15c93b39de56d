/**
 * A variable's lineage as a React Flow graph: one node per candidate (coloured by reward,
 * survivors and the best marked), one edge per parent (a crossover's two edges dashed),
 * laid out in generations by elk's layered algorithm, from the initial value down.
 */
import { MarkerType, type Edge, type Node, type XYPosition } from '@xyflow/react';
import type { LineageCandidate, VariableLineage } from '../api/runsLineage';

export const CANDIDATE_SIZE = { width: 168, height: 74 };

export type CandidateData = {
  candidate: LineageCandidate;
  /** `#8` for `generator/state#8`. */
  label: string;
  fill: string;
  /** On the selected candidate's line of ancestors (or is it). */
  highlighted: boolean;
};
export type CandidateNode = Node<CandidateData, 'candidate'>;
export type LineageEdge = Edge<{ crossover: boolean }>;

/** `#8` for `generator/state#8` (the id itself when it has no `#`). */
export function shortId(id: string): string {
  const at = id.lastIndexOf('#');
  return at >= 0 ? id.slice(at) : id;
}

/** A background from red (reward 0) through amber to green (reward 1); grey when unscored. */
export function rewardFill(reward: number | null): string {
  if (reward === null || !Number.isFinite(reward)) return 'hsl(220 14% 92%)';
  const clamped = Math.min(1, Math.max(0, reward));
  return `hsl(${Math.round(clamped * 120)} 70% 86%)`;
}

/** The candidate and every candidate it descends from (through all parents). */
export function ancestry(variable: VariableLineage, id: string | null): Set<string> {
  const parents = new Map(variable.nodes.map((n) => [n.id, n.parents]));
  const found = new Set<string>();
  const pending = id === null ? [] : [id];
  while (pending.length) {
    const next = pending.pop()!;
    if (found.has(next) || !parents.has(next)) continue;
    found.add(next);
    pending.push(...(parents.get(next) ?? []));
  }
  return found;
}

/** Nodes and edges for React Flow (positions from `layoutLineage`, else the origin). */
export function buildLineageGraph(
  variable: VariableLineage,
  selected: string | null = null,
  positions: Record<string, XYPosition> = {},
): { nodes: CandidateNode[]; edges: LineageEdge[] } {
  const line = ancestry(variable, selected);
  const known = new Set(variable.nodes.map((n) => n.id));
  const nodes: CandidateNode[] = variable.nodes.map((candidate) => ({
    id: candidate.id,
    type: 'candidate',
    position: positions[candidate.id] ?? { x: 0, y: 0 },
    width: CANDIDATE_SIZE.width,
    height: CANDIDATE_SIZE.height,
    selected: candidate.id === selected,
    ariaLabel: describeCandidate(candidate),
    ariaRole: 'button',
    data: {
      candidate,
      label: shortId(candidate.id),
      fill: rewardFill(candidate.reward),
      highlighted: line.has(candidate.id),
    },
  }));
  const edges: LineageEdge[] = variable.edges
    .filter((e) => known.has(e.source) && known.has(e.target))
    .map((e) => {
      const onLine = line.has(e.source) && line.has(e.target);
      const colour = onLine ? 'var(--accent)' : e.crossover ? '#7048e8' : '#8b95a5';
      return {
        id: e.id,
        source: e.source,
        target: e.target,
        data: { crossover: e.crossover },
        className: e.crossover ? 'lineage-crossover' : undefined,
        markerEnd: { type: MarkerType.ArrowClosed, color: colour, width: 16, height: 16 },
        style: {
          stroke: colour,
          strokeWidth: onLine ? 2.4 : 1.4,
          strokeDasharray: e.crossover ? '6 4' : undefined,
        },
        ariaLabel: `${shortId(e.source)} to ${shortId(e.target)}${e.crossover ? ' (crossover)' : ''}`,
      };
    });
  return { nodes, edges };
}

/** What a screen reader hears for a node: `Candidate #8, crossover, reward 0.500, best`. */
export function describeCandidate(c: LineageCandidate): string {
  const parts = [`Candidate ${shortId(c.id)}`, c.operation];
  parts.push(c.reward === null ? 'unscored' : `reward ${c.reward.toFixed(3)}`);
  if (c.best) parts.push('best');
  else if (c.in_population) parts.push('survived');
  else if (c.merged_into) parts.push(`merged into ${shortId(c.merged_into)}`);
  else if (c.dropped_at !== null) parts.push(`dropped at epoch ${c.dropped_at}`);
  return parts.join(', ');
}

type ElkNode = { id: string; x?: number; y?: number; width?: number; height?: number };
type ElkGraph = ElkNode & {
  layoutOptions?: Record<string, string>;
  children?: ElkNode[];
  edges?: { id: string; sources: string[]; targets: string[] }[];
};
/** The part of elkjs the lineage uses; tests pass a stand-in. */
export type ElkLike = { layout: (graph: ElkGraph) => Promise<{ children?: ElkNode[] }> };

async function defaultElk(): Promise<ElkLike> {
  const { default: ELK } = await import('elkjs/lib/elk.bundled.js');
  return new ELK() as unknown as ElkLike;
}

/** Positions in generations, parents above their children (elk's layered algorithm). */
export async function layoutLineage(
  variable: VariableLineage,
  elk?: ElkLike,
): Promise<Record<string, XYPosition>> {
  const engine = elk ?? (await defaultElk());
  const known = new Set(variable.nodes.map((n) => n.id));
  const result = await engine.layout({
    id: 'lineage',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.layered.spacing.nodeNodeBetweenLayers': '56',
      'elk.spacing.nodeNode': '28',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
    },
    children: variable.nodes.map((n) => ({ id: n.id, ...CANDIDATE_SIZE })),
    edges: variable.edges
      .filter((e) => known.has(e.source) && known.has(e.target))
      .map((e) => ({ id: e.id, sources: [e.source], targets: [e.target] })),
  });
  const positions: Record<string, XYPosition> = {};
  for (const child of result.children ?? [])
    positions[child.id] = { x: child.x ?? 0, y: child.y ?? 0 };
  return positions;
}
