import { describe, expect, it } from 'vitest';
import { addNode } from '../actions/addNode';
import { apply, makeState } from '../actions/testing';
import { makeEdge } from './graph';
import { checkConnection, programProblems } from './rules';

const messages = (state: ReturnType<typeof makeState>) =>
  programProblems(state).map((p) => p.message);

describe('programProblems', () => {
  it('accepts the engine-written program', () => {
    expect(programProblems(makeState('qa'))).toEqual([]);
  });

  it('asks for an Input in an empty or input-less program', () => {
    expect(messages(makeState())).toEqual(['The program is empty: add an Input from the palette.']);
    const state = apply(makeState(), addNode, { kind: 'Generator' });
    expect(messages(state)).toEqual([
      "Generator 'generator' has no input: its output cannot reach back to an Input.",
      'A program needs at least one Input.',
    ]);
  });

  it('finds duplicate names, double inputs and cycles a hand-edited file could hold', () => {
    const state = makeState('qa');
    const [input, gen, cot] = state.nodes;
    cot!.data.config.name = 'generator';
    const edges = [...state.edges, makeEdge(cot!.id, gen!.id)];
    expect(messages({ ...state, edges })).toEqual([
      "Two modules are named 'generator'.",
      'These modules form a cycle: generator, generator.',
    ]);
    expect(checkConnection(state, input!.id, 'missing')).toEqual({
      ok: false,
      reason: 'Both ends of a connection must be modules.',
    });
  });

  it('flags a negative temperature and a missing program name', () => {
    const state = makeState('qa');
    const gen = state.nodes[1]!;
    if (gen.data.kind === 'Generator') gen.data.config.temperature = -0.5;
    expect(messages({ ...state, meta: { ...state.meta, name: ' ' } })).toEqual([
      'The program needs a name.',
      "Generator 'generator': temperature must be a number >= 0.",
    ]);
  });

  it('flags sampling settings a hand-edited file puts out of range', () => {
    const state = makeState('qa');
    const cot = state.nodes[2]!;
    if (cot.data.kind !== 'Input') Object.assign(cot.data.config, { top_p: 2, top_k: 0 });
    expect(messages(state)).toEqual([
      "ChainOfThought 'chain_of_thought': top p must be a number above 0 and at most 1.",
      "ChainOfThought 'chain_of_thought': top k must be a whole number >= 1.",
    ]);
  });
});
