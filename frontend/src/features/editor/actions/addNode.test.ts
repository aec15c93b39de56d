import { describe, expect, it } from 'vitest';
import { moduleName } from '../model/graph';
import { addNode } from './addNode';
import { apply, makeState } from './testing';

describe('addNode', () => {
  it('names modules the way optimizer_core does and selects the new one', () => {
    let state = makeState();
    state = apply(state, addNode, { kind: 'Input' });
    state = apply(state, addNode, { kind: 'Generator' });
    state = apply(state, addNode, { kind: 'Generator' });
    state = apply(state, addNode, { kind: 'ChainOfThought' });
    expect(state.nodes.map(moduleName)).toEqual([
      'input_layer',
      'generator',
      'generator_1',
      'chain_of_thought',
    ]);
    expect(state.nodes.map((n) => Boolean(n.selected))).toEqual([false, false, false, true]);
  });

  it('gives an Input the Query model and a Generator the Answer model, with default instructions', () => {
    let state = apply(makeState(), addNode, { kind: 'Input' });
    state = apply(state, addNode, { kind: 'ChainOfThought', position: { x: 10, y: 20 } });
    const [input, cot] = state.nodes;
    expect(input?.data.config.data_model.name).toBe('Query');
    expect(cot?.position).toEqual({ x: 10, y: 20 });
    expect(cot?.data.kind === 'ChainOfThought' && cot.data.variable.instructions).toBe(
      'Your task is to answer with a JSON containing the following keys: ["thinking", "answer"].',
    );
    expect(Object.keys(cot?.data.config ?? {})).toEqual([
      'name',
      'description',
      'trainable',
      'data_model',
      'language_model',
      'instructions',
      'use_inputs_schema',
      'use_outputs_schema',
      'temperature',
    ]);
  });

  it('wires a module added after the selected one, in one step', () => {
    let state = apply(makeState(), addNode, { kind: 'Input', position: { x: 0, y: 0 } });
    const input = state.nodes[0]!.id;
    state = apply(state, addNode, { kind: 'Generator', after: input });
    const gen = state.nodes[1]!;
    expect(gen.position).toEqual({ x: 320, y: 0 });
    expect(state.edges).toMatchObject([{ source: input, target: gen.id }]);
    // An Input never gets an inbound edge, even when added "after" something.
    state = apply(state, addNode, { kind: 'Input', after: gen.id });
    expect(state.edges).toHaveLength(1);
  });
});
