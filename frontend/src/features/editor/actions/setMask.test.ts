import { describe, expect, it } from 'vitest';
import { programProblems } from '../model/rules';
import { modelKeys, OutputModels } from '../model/schemas';
import { addNode } from './addNode';
import { connect } from './connect';
import { setMask } from './setMask';
import { apply, makeState, reason } from './testing';

describe('setMask', () => {
  it('keeps the fields an InMask names and drops those an OutMask names', () => {
    let state = makeState('qa');
    const cot = state.nodes[2]!.id;
    state = apply(state, addNode, { kind: 'InMask' });
    const keep = state.nodes.at(-1)!.id;
    state = apply(state, addNode, { kind: 'OutMask' });
    const drop = state.nodes.at(-1)!.id;
    state = apply(state, connect, { source: cot, target: keep });
    state = apply(state, connect, { source: cot, target: drop });
    // No field named yet: the rules say so.
    expect(programProblems(state).map((p) => p.message)).toContain(
      "InMask 'in_mask' names no field.",
    );
    state = apply(state, setMask, { nodeId: keep, mask: ['answer'] });
    state = apply(state, setMask, { nodeId: drop, mask: ['thinking'] });
    const models = new OutputModels(state);
    expect(modelKeys(models.inputs(keep)[0])).toEqual(['thinking', 'answer']);
    expect(modelKeys(models.outputs(keep)[0])).toEqual(['answer']);
    expect(modelKeys(models.outputs(drop)[0])).toEqual(['answer']);
    expect(programProblems(state)).toEqual([]);
    // Dropping every field leaves no data model.
    const none = apply(state, setMask, { nodeId: drop, mask: ['thinking', 'answer'] });
    expect(programProblems(none).map((p) => p.message)).toEqual([
      "OutMask 'out_mask' drops every one of the fields it reads: a data model needs one.",
    ]);
  });

  it('refuses a module without a mask', () => {
    const state = makeState('qa');
    expect(reason(state, setMask, { nodeId: state.nodes[1]!.id, mask: ['x'] })).toBe(
      'A Generator has no mask.',
    );
  });
});
