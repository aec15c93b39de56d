import { describe, expect, it } from 'vitest';
import route from '../__fixtures__/template_route_then_answer.json';
import { STARTER_MODELS } from '../model/defaults';
import { documentToGraph, graphToDocument, moduleName } from '../model/graph';
import { copySelection, isClipboardPayload, paste } from './clipboard';
import { apply, makeState, reason } from './testing';

describe('copy and paste', () => {
  it('copies the selected modules with the edges between them, pasted under new names', () => {
    const state = makeState('qa');
    state.nodes[1]!.selected = true;
    state.nodes[2]!.selected = true;
    const payload = copySelection(state)!;
    expect(isClipboardPayload(JSON.parse(JSON.stringify(payload)))).toBe(true);
    expect(payload.edges).toEqual([{ source: 0, target: 1 }]);
    const next = apply(state, paste, { payload });
    expect(next.nodes.map(moduleName)).toEqual([
      'input_layer',
      'generator',
      'chain_of_thought',
      'generator_1',
      'chain_of_thought_1',
    ]);
    const [g1, c1] = next.nodes.slice(3);
    expect(next.edges.at(-1)).toMatchObject({ source: g1!.id, target: c1!.id });
    expect(g1!.position).toEqual({
      x: state.nodes[1]!.position.x + 40,
      y: state.nodes[1]!.position.y + 40,
    });
    expect(next.nodes.filter((n) => n.selected).map(moduleName)).toEqual([
      'generator_1',
      'chain_of_thought_1',
    ]);
    // The copy does not share objects with the original.
    expect(g1!.data.config).not.toBe(state.nodes[1]!.data.config);
  });

  it('copies nothing without a selection', () => {
    expect(copySelection(makeState('qa'))).toBeNull();
    expect(
      reason(makeState(), paste, {
        payload: { kind: 'studio.editor.clipboard', nodes: [], edges: [] },
      }),
    ).toBe('The clipboard is empty.');
  });

  it("pastes a Branch with its slots' edges, its held modules and variables renamed", () => {
    const state = { ...documentToGraph(route), dataModels: structuredClone(STARTER_MODELS) };
    for (const node of state.nodes) node.selected = node.type !== 'Input';
    const payload = copySelection(state)!;
    const next = apply(state, paste, { payload });
    const [branch, or] = next.nodes.slice(-2);
    expect(next.edges.filter((e) => e.target === or!.id).map((e) => e.sourceHandle)).toEqual([
      'out:0',
      'out:1',
    ]);
    expect(branch!.data.kind === 'Branch' && Object.keys(branch!.data.variables)).toEqual([
      'router_1_decision/state',
      'account_topic_1/state',
      'order_topic_1/state',
    ]);
    // The copy repeats no name of the original (held modules included).
    const { document } = graphToDocument({ ...next, edges: next.edges });
    expect(Object.keys(document.variables)).toHaveLength(6);
  });
});
