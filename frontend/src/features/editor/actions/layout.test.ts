import { describe, expect, it, vi } from 'vitest';
import { applyLayout, computeLayout, type ElkLike } from './layout';
import { apply, makeState } from './testing';

type XY = { x: number; y: number };

describe('auto-layout', () => {
  it('lays the program out left to right with elk', async () => {
    const state = makeState('qa');
    const positions = await computeLayout(state.nodes, state.edges);
    const [input, gen, cot] = state.nodes.map((n) => positions[n.id]!) as [XY, XY, XY];
    expect(input.x).toBeLessThan(gen.x);
    expect(gen.x).toBeLessThan(cot.x);
    const next = apply(state, applyLayout, { positions });
    expect(next.nodes[2]!.position).toEqual({ x: Math.round(cot.x), y: Math.round(cot.y) });
  });

  it('asks elk for a layered, rightward layout with node sizes', async () => {
    const state = makeState('qa');
    const layout = vi.fn<ElkLike['layout']>(async (graph) => ({
      id: 'root',
      children: graph.children?.map((c, i) => ({ id: c.id, x: i * 100, y: 5 })),
    }));
    const positions = await computeLayout(state.nodes, state.edges, { layout });
    const graph = layout.mock.calls[0]![0];
    expect(graph.layoutOptions).toMatchObject({
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
    });
    expect(graph.edges).toHaveLength(2);
    expect(graph.children?.[0]).toMatchObject({ width: 240, height: 132 });
    expect(positions[state.nodes[2]!.id]).toEqual({ x: 200, y: 5 });
  });
});
