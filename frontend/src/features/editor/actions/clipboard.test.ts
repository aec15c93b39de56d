import { describe, expect, it } from 'vitest';
import { moduleName } from '../model/graph';
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
});
