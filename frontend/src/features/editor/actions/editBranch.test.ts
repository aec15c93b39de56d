import { describe, expect, it } from 'vitest';
import route from '../__fixtures__/template_route_then_answer.json';
import { STARTER_MODELS } from '../model/defaults';
import { decisionInstructions } from '../model/document';
import { documentToGraph, graphToDocument } from '../model/graph';
import { addNode } from './addNode';
import { updateBranchModule } from './editBranch';
import { editLabels } from './editLabels';
import { apply, makeState, reason } from './testing';
import type { EditorDocumentState } from './types';

function routeState(): EditorDocumentState {
  return { ...documentToGraph(route), dataModels: structuredClone(STARTER_MODELS) };
}

describe('updateBranchModule', () => {
  it('rewrites the instructions of the module a label holds, in its config and its variable', () => {
    const state = routeState();
    const nodeId = state.nodes[1]!.id;
    const next = apply(state, updateBranchModule, {
      nodeId,
      part: 1,
      patch: { instructions: 'Name the order problem in one word.' },
    });
    const { document } = graphToDocument(next);
    const branches = document.program.modules[1]!.module.config.branches as {
      config: Record<string, unknown>;
    }[];
    expect(branches[1]!.config.instructions).toBe('Name the order problem in one word.');
    expect(document.variables['order_topic/state']!.instructions).toBe(
      'Name the order problem in one word.',
    );
    // The other label's module and the decision are as they were.
    expect(branches[0]).toEqual(route.program.modules[1]!.module.config.branches![0]);
    expect(document.variables['account_topic/state']).toEqual(
      route.variables['account_topic/state'],
    );
    expect(document.variables['router_decision/state']).toEqual(
      route.variables['router_decision/state'],
    );
  });

  it("sets a held module's sampling and model, and empty instructions go back to the default", () => {
    const state = routeState();
    const nodeId = state.nodes[1]!.id;
    const written = apply(state, updateBranchModule, {
      nodeId,
      part: 0,
      patch: { instructions: 'Say which account problem it is.', temperature: 0.3, top_k: 5 },
    });
    const next = apply(written, updateBranchModule, {
      nodeId,
      part: 0,
      patch: { instructions: '', model: ' openai/gpt-4o-mini ' },
    });
    const { document } = graphToDocument(next);
    const held = (
      document.program.modules[1]!.module.config.branches as { config: Record<string, unknown> }[]
    )[0]!.config;
    expect(held).toMatchObject({ temperature: 0.3, top_k: 5, instructions: null });
    expect((held.language_model as { config: { model: string } }).config.model).toBe(
      'openai/gpt-4o-mini',
    );
    expect(document.variables['account_topic/state']!.instructions).toBe(
      route.variables['account_topic/state'].instructions,
    );
  });

  it("edits the decision's instructions and sampling: they are the Branch's own", () => {
    const state = routeState();
    const nodeId = state.nodes[1]!.id;
    const next = apply(state, updateBranchModule, {
      nodeId,
      part: 'decision',
      patch: { instructions: 'Pick account or order.', max_tokens: 64 },
    });
    const { document } = graphToDocument(next);
    const config = document.program.modules[1]!.module.config;
    expect(config).toMatchObject({ instructions: 'Pick account or order.', max_tokens: 64 });
    expect(document.variables['router_decision/state']!.instructions).toBe(
      'Pick account or order.',
    );
    const reset = apply(next, updateBranchModule, {
      nodeId,
      part: 'decision',
      patch: { instructions: ' ' },
    });
    expect(graphToDocument(reset).document.variables['router_decision/state']!.instructions).toBe(
      decisionInstructions('Decision', ['account', 'order']),
    );
  });

  it('refuses what the engine would refuse, saying what is wrong', () => {
    const state = routeState();
    const nodeId = state.nodes[1]!.id;
    expect(reason(state, updateBranchModule, { nodeId, part: 0, patch: { top_p: 2 } })).toMatch(
      /^Top p must be/,
    );
    expect(reason(state, updateBranchModule, { nodeId, part: 0, patch: { model: ' ' } })).toBe(
      'A model name is needed.',
    );
    expect(reason(state, updateBranchModule, { nodeId, part: 5, patch: {} })).toBe(
      'There is no such label.',
    );
    const added = apply(state, editLabels, { nodeId, edit: { op: 'add', label: 'other' } });
    expect(reason(added, updateBranchModule, { nodeId, part: 2, patch: {} })).toBe(
      "The label 'other' holds no module: it passes its input on.",
    );
    const plain = apply(makeState(), addNode, { kind: 'Generator' });
    expect(
      reason(plain, updateBranchModule, { nodeId: plain.nodes[0]!.id, part: 0, patch: {} }),
    ).toBe('A Generator holds no branches.');
  });
});
