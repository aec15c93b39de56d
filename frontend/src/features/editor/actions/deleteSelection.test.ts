import { describe, expect, it } from 'vitest';
import { moduleName } from '../model/graph';
import { programProblems } from '../model/rules';
import { deleteSelection } from './deleteSelection';
import { apply, makeState, reason } from './testing';

describe('deleteSelection', () => {
  it('removes selected modules with their edges', () => {
    const state = makeState('qa');
    state.nodes[1]!.selected = true;
    const next = apply(state, deleteSelection, undefined);
    expect(next.nodes.map(moduleName)).toEqual(['input_layer', 'chain_of_thought']);
    expect(next.edges).toEqual([]);
    expect(programProblems(next).map((p) => p.message)).toEqual([
      "Input 'input_layer' is not connected to any output.",
      "ChainOfThought 'chain_of_thought' has no input: its output cannot reach back to an Input.",
    ]);
  });

  it('removes a selected edge only', () => {
    const state = makeState('qa');
    state.edges[1]!.selected = true;
    const next = apply(state, deleteSelection, undefined);
    expect(next.nodes).toHaveLength(3);
    expect(next.edges).toHaveLength(1);
  });

  it('says so when nothing is selected', () => {
    expect(reason(makeState('qa'), deleteSelection, undefined)).toBe('Nothing is selected.');
  });
});
