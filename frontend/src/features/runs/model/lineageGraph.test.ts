import { describe, expect, it } from 'vitest';
import { omegaLineage } from '../__fixtures__/lineage';
import {
  ancestry,
  buildLineageGraph,
  CANDIDATE_SIZE,
  describeCandidate,
  layoutLineage,
  rewardFill,
  shortId,
  type ElkLike,
} from './lineageGraph';

const variable = omegaLineage.variables[0]!;
const id = (n: number) => `generator/state#${n}`;

describe('buildLineageGraph', () => {
  it('draws one node per candidate, coloured by reward, and one edge per known parent', () => {
    const { nodes, edges } = buildLineageGraph(variable);
    expect(nodes.map((n) => n.data.label)).toEqual(['#1', '#2', '#3', '#4', '#5']);
    expect(nodes.every((n) => n.type === 'candidate')).toBe(true);
    expect(nodes[3]!.data.fill).toBe('hsl(120 70% 86%)');
    expect(nodes[2]!.data.fill).toBe('hsl(0 70% 86%)');
    expect(nodes[0]!.width).toBe(CANDIDATE_SIZE.width);
    // The edge from a candidate the lineage does not hold is left out.
    expect(edges.map((e) => [shortId(e.source), shortId(e.target)])).toEqual([
      ['#1', '#2'],
      ['#1', '#3'],
      ['#2', '#4'],
      ['#3', '#4'],
      ['#3', '#5'],
    ]);
  });

  it("draws a crossover's edges from both parents, dashed", () => {
    const { edges } = buildLineageGraph(variable);
    const intoCrossover = edges.filter((e) => e.target === id(4));
    expect(intoCrossover.map((e) => e.source)).toEqual([id(2), id(3)]);
    for (const edge of intoCrossover) {
      expect(edge.data).toEqual({ crossover: true });
      expect(edge.style?.strokeDasharray).toBe('6 4');
    }
    expect(edges.find((e) => e.target === id(2))!.style?.strokeDasharray).toBeUndefined();
  });

  it("highlights the selected candidate's line of ancestors", () => {
    expect(ancestry(variable, id(4))).toEqual(new Set([id(4), id(2), id(3), id(1)]));
    expect(ancestry(variable, id(2))).toEqual(new Set([id(2), id(1)]));
    expect(ancestry(variable, null)).toEqual(new Set());
    const { nodes, edges } = buildLineageGraph(variable, id(2));
    expect(nodes.filter((n) => n.data.highlighted).map((n) => n.data.label)).toEqual(['#1', '#2']);
    expect(nodes.find((n) => n.selected)?.id).toBe(id(2));
    const onLine = edges.filter((e) => e.style?.stroke === 'var(--accent)');
    expect(onLine.map((e) => e.id)).toEqual([`${id(1)}->${id(2)}`]);
  });

  it('names each candidate for screen readers: operation, reward and fate', () => {
    const [root, dropped, survived, best, merged] = variable.nodes;
    expect(describeCandidate(best!)).toBe('Candidate #4, crossover, reward 1.000, best');
    expect(describeCandidate(root!)).toBe('Candidate #1, init, reward 0.250, survived');
    expect(describeCandidate(dropped!)).toContain('dropped at epoch 1');
    expect(describeCandidate(survived!)).toContain('survived');
    expect(describeCandidate(merged!)).toContain('merged into #3');
    expect(buildLineageGraph(variable).nodes[3]!.ariaLabel).toBe(describeCandidate(best!));
  });

  it('gives unscored candidates a grey', () => {
    expect(rewardFill(null)).toBe('hsl(220 14% 92%)');
    expect(rewardFill(0.5)).toBe('hsl(60 70% 86%)');
    expect(rewardFill(7)).toBe('hsl(120 70% 86%)');
  });
});

describe('layoutLineage', () => {
  it('asks elk for a layered layout, parents above children, and maps its positions', async () => {
    let asked: Parameters<ElkLike['layout']>[0] | undefined;
    const elk: ElkLike = {
      layout: async (graph) => {
        asked = graph;
        return { children: graph.children?.map((c, i) => ({ ...c, x: i * 10, y: i * 100 })) };
      },
    };
    const positions = await layoutLineage(variable, elk);
    expect(asked?.layoutOptions?.['elk.direction']).toBe('DOWN');
    expect(asked?.children?.[0]).toEqual({ id: id(1), ...CANDIDATE_SIZE });
    expect(asked?.edges).toHaveLength(5);
    expect(positions[id(3)]).toEqual({ x: 20, y: 200 });
  });

  it('with the real elk, puts each generation below its parents', async () => {
    const positions = await layoutLineage(variable);
    const y = (n: number) => positions[id(n)]!.y;
    expect(y(1)).toBeLessThan(y(2));
    expect(y(2)).toBeLessThan(y(4));
    expect(y(3)).toBeLessThan(y(4));
    expect(y(3)).toBeLessThan(y(5));
  });
});
