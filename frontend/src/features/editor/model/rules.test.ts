import { describe, expect, it } from 'vitest';
import { addNode } from '../actions/addNode';
import { apply, makeState } from '../actions/testing';
import { makeEdge, slotHandle } from './graph';
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

  it('flags an Or fed fields of one name with different types', () => {
    let state = makeState('qa');
    const [input, gen] = state.nodes;
    // The Generator now answers a `query` that is a number, the Input's is a string.
    if (gen!.data.kind === 'Generator') {
      gen!.data.config.data_model = {
        ...gen!.data.config.data_model,
        schema: { type: 'object', properties: { query: { type: 'integer' } }, required: ['query'] },
      };
    }
    state = apply(state, addNode, { kind: 'Or' });
    const or = state.nodes.at(-1)!;
    state = {
      ...state,
      edges: [...state.edges, makeEdge(input!.id, or.id), makeEdge(gen!.id, or.id)],
    };
    expect(messages(state)).toEqual([
      "Or 'or' cannot merge its inputs: 'query' has different types in them.",
    ]);
  });

  it('flags a Branch label no module reads', () => {
    let state = makeState('qa');
    const gen = state.nodes[1]!;
    state = apply(state, addNode, { kind: 'Branch' });
    const branch = state.nodes.at(-1)!;
    const cot = state.nodes[2]!;
    // generator -> branch; label 'yes' -> chain_of_thought; 'no' leads nowhere.
    const edges = [
      state.edges[0]!,
      makeEdge(gen.id, branch.id),
      makeEdge(branch.id, cot.id, slotHandle(0)),
    ];
    expect(messages({ ...state, edges })).toEqual([
      "Branch 'branch': label 'no' has no module connected.",
    ]);
  });

  it('flags an output no Input reaches, and the cycle that feeds it', () => {
    let state = makeState('qa');
    const cot = state.nodes[2];
    state = apply(state, addNode, { kind: 'Generator' });
    state = apply(state, addNode, { kind: 'Generator' });
    const [a, b] = state.nodes.slice(-2);
    // a <-> b loop, and chain_of_thought reads b instead of generator (still an output).
    const edges = [
      state.edges[0]!,
      makeEdge(a!.id, b!.id),
      makeEdge(b!.id, a!.id),
      makeEdge(b!.id, cot!.id),
    ];
    expect(messages({ ...state, edges })).toEqual([
      'These modules form a cycle: chain_of_thought, generator_1, generator_2.',
      "ChainOfThought 'chain_of_thought' is an output no Input reaches.",
    ]);
  });
});
