import { describe, expect, it } from 'vitest';
import critique from '../__fixtures__/template_answer_then_critique.json';
import { STARTER_MODELS } from '../model/defaults';
import { documentToGraph, graphToDocument } from '../model/graph';
import { addNode } from './addNode';
import { setCritique } from './setCritique';
import { apply, makeState, reason } from './testing';

describe('setCritique', () => {
  it('drops the reviser when not revising and adds it back as the engine writes it', () => {
    const state = { ...documentToGraph(critique), dataModels: structuredClone(STARTER_MODELS) };
    const nodeId = state.nodes[2]!.id;
    const plain = apply(state, setCritique, { nodeId, revise: false });
    expect(Object.keys(graphToDocument(plain).document.variables)).toEqual([
      'answerer/state',
      'critic_critic/state',
    ]);
    const again = apply(plain, setCritique, { nodeId, revise: true });
    expect(graphToDocument(again).document).toEqual(critique);
  });

  it("the critic's default instructions follow the grading", () => {
    const state = apply(makeState(), addNode, { kind: 'SelfCritique' });
    const nodeId = state.nodes[0]!.id;
    const next = apply(state, setCritique, { nodeId, return_reward: false });
    const data = next.nodes[0]!.data;
    expect(
      data.kind === 'SelfCritique' && data.variables['self_critique_critic/state'],
    ).toMatchObject({
      instructions: expect.not.stringContaining('reward'),
    });
    const qa = makeState('qa');
    expect(reason(qa, setCritique, { nodeId: qa.nodes[0]!.id })).toBe(
      'An Input does not critique.',
    );
  });
});
