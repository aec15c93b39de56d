import { describe, expect, it } from 'vitest';
import { addNode } from './addNode';
import { connect } from './connect';
import { apply, makeState, reason } from './testing';

function chain() {
  let state = makeState();
  for (const kind of ['Input', 'Generator', 'ChainOfThought', 'Input'] as const)
    state = apply(state, addNode, { kind });
  const [input, gen, cot, other] = state.nodes.map((n) => n.id) as [string, string, string, string];
  return { state, input, gen, cot, other };
}

describe('connect', () => {
  it('wires an output to an input', () => {
    const { state, input, gen } = chain();
    const next = apply(state, connect, { source: input, target: gen });
    expect(next.edges).toMatchObject([
      { source: input, target: gen, sourceHandle: 'out', targetHandle: 'in' },
    ]);
  });

  it('refuses an edge into an Input', () => {
    const { state, gen, other } = chain();
    expect(reason(state, connect, { source: gen, target: other })).toBe(
      "Input 'input_layer_1' has no inbound edge: an Input is where data enters the program.",
    );
  });

  it('wires a second input into a Generator (the engine merges them), not into a mask', () => {
    const { state: start, input, gen, other } = chain();
    const state = apply(start, connect, { source: input, target: gen });
    const both = apply(state, connect, { source: other, target: gen });
    expect(both.edges.filter((e) => e.target === gen).map((e) => e.source)).toEqual([input, other]);
    expect(reason(state, connect, { source: input, target: gen })).toBe(
      "Input 'input_layer' already feeds Generator 'generator'.",
    );
    const masked = apply(state, addNode, { kind: 'InMask' });
    const mask = masked.nodes.at(-1)!.id;
    const once = apply(masked, connect, { source: input, target: mask });
    expect(reason(once, connect, { source: other, target: mask })).toBe(
      "InMask 'in_mask' takes exactly one input and already reads Input 'input_layer'; delete that edge first.",
    );
  });

  it('wires each label of a Branch from its own handle', () => {
    const { state: start, input, gen, cot } = chain();
    let state = apply(start, addNode, { kind: 'Branch' });
    const branch = state.nodes.at(-1)!.id;
    state = apply(state, connect, { source: input, target: branch });
    state = apply(state, connect, { source: branch, target: gen, sourceHandle: 'out:0' });
    state = apply(state, connect, { source: branch, target: cot, sourceHandle: 'out:1' });
    expect(state.edges.filter((e) => e.source === branch).map((e) => e.sourceHandle)).toEqual([
      'out:0',
      'out:1',
    ]);
    expect(reason(state, connect, { source: branch, target: cot, sourceHandle: 'out:1' })).toBe(
      "Branch 'branch' already feeds ChainOfThought 'chain_of_thought'.",
    );
  });

  it('refuses a cycle and names it', () => {
    const { state: start, input, gen, cot } = chain();
    let state = apply(start, connect, { source: input, target: gen });
    state = apply(state, connect, { source: gen, target: cot });
    const other = apply(state, addNode, { kind: 'Generator' });
    const g2 = other.nodes.at(-1)!.id;
    const looped = apply(other, connect, { source: cot, target: g2 });
    expect(reason(looped, connect, { source: g2, target: cot })).toBe(
      'That would make a cycle: chain_of_thought -> generator_1 -> chain_of_thought.',
    );
    // A module with no input yet can still not close a loop.
    const fresh = apply(start, connect, { source: gen, target: cot });
    expect(reason(fresh, connect, { source: cot, target: gen })).toBe(
      'That would make a cycle: generator -> chain_of_thought -> generator.',
    );
    expect(reason(fresh, connect, { source: gen, target: gen })).toBe(
      "Generator 'generator' cannot feed itself.",
    );
  });
});
