import { describe, expect, it } from 'vitest';
import { graphToDocument, moduleName, ownDataModel } from '../model/graph';
import { nodeRect, type Rect } from '../model/placement';
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
    expect(ownDataModel(input!)?.name).toBe('Query');
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
      'max_tokens',
      'top_p',
      'top_k',
      'reasoning_effort',
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

  it("wires a module added after a Branch to the first label's output nothing reads yet", () => {
    let state = apply(makeState(), addNode, { kind: 'Input' });
    state = apply(state, addNode, { kind: 'Branch', after: state.nodes[0]!.id });
    const branch = state.nodes[1]!.id;
    state = apply(state, addNode, { kind: 'Generator', after: branch });
    state = apply(state, addNode, { kind: 'Generator', after: branch });
    // Both labels read: a third follows the first label too.
    state = apply(state, addNode, { kind: 'Generator', after: branch });
    const [, , first, second, third] = state.nodes.map((n) => n.id);
    expect(state.edges.filter((e) => e.source === branch)).toMatchObject([
      { target: first, sourceHandle: 'out:0' },
      { target: second, sourceHandle: 'out:1' },
      { target: third, sourceHandle: 'out:0' },
    ]);
    // Saved, each Generator reads the label it is drawn from.
    const { document } = graphToDocument({ ...state, meta: { ...state.meta, name: 'p' } });
    expect(document.program.modules.map((m) => m.inbound)).toEqual([
      [],
      ['input_layer'],
      [{ module: 'branch', output: 0 }],
      [{ module: 'branch', output: 1 }],
      [{ module: 'branch', output: 0 }],
    ]);
  });

  it('places each new module beside the last one, clear of the others', () => {
    const apart = (a: Rect, b: Rect) =>
      a.x >= b.x + b.width ||
      b.x >= a.x + a.width ||
      a.y >= b.y + b.height ||
      b.y >= a.y + a.height;
    let state = apply(makeState('qa'), addNode, { kind: 'Generator' });
    const last = state.nodes.at(-2)!;
    const added = state.nodes.at(-1)!;
    expect(added.position.x).toBeGreaterThan(last.position.x);
    for (let i = 0; i < 6; i += 1) {
      const kind = i % 2 ? 'Generator' : 'ChainOfThought';
      // Half of them follow the first module: siblings stack instead of covering each other.
      const after = i % 3 === 0 ? state.nodes[0]!.id : undefined;
      state = apply(state, addNode, { kind, after });
    }
    const rects = state.nodes.map(nodeRect);
    rects.forEach((a, i) => rects.slice(i + 1).forEach((b) => expect(apart(a, b)).toBe(true)));
  });

  it('puts the first module of an empty canvas at the given origin', () => {
    const state = apply(makeState(), addNode, { kind: 'Input', origin: { x: 30, y: 60 } });
    expect(state.nodes[0]?.position).toEqual({ x: 30, y: 60 });
  });
});
