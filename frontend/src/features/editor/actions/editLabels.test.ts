import { describe, expect, it } from 'vitest';
import route from '../__fixtures__/template_route_then_answer.json';
import { STARTER_MODELS } from '../model/defaults';
import { documentToGraph, graphToDocument, type BranchNodeData } from '../model/graph';
import { programProblems } from '../model/rules';
import { addNode } from './addNode';
import { editLabels, setQuestion } from './editLabels';
import { apply, makeState, reason } from './testing';
import type { EditorDocumentState } from './types';

function routeState(): EditorDocumentState {
  return { ...documentToGraph(route), dataModels: structuredClone(STARTER_MODELS) };
}
const branchData = (state: EditorDocumentState) => state.nodes[1]!.data as BranchNodeData;

describe('editLabels', () => {
  it("renames a Branch's label; its slot keeps its module and connection", () => {
    const state = routeState();
    const router = state.nodes[1]!.id;
    const next = apply(state, editLabels, {
      nodeId: router,
      edit: { op: 'rename', index: 1, label: 'delivery' },
    });
    const { document } = graphToDocument(next);
    const saved = document.program.modules[1]!.module.config;
    expect(saved.labels).toEqual(['account', 'delivery']);
    expect(document.program.modules[2]!.inbound).toEqual([
      { module: 'router', output: 0 },
      { module: 'router', output: 1 },
    ]);
    // The decision's instructions were the default: they name the new label.
    expect(document.variables['router_decision/state']!.instructions).toContain(
      '["account", "delivery"]',
    );
  });

  it('adds a label with a slot that passes the input on, flagged until connected', () => {
    const state = routeState();
    const router = state.nodes[1]!.id;
    const next = apply(state, editLabels, { nodeId: router, edit: { op: 'add', label: 'other' } });
    expect(branchData(next).config.branches).toHaveLength(3);
    expect(branchData(next).config.branches[2]).toBeNull();
    expect(programProblems(next).map((p) => p.message)).toEqual([
      "Branch 'router': label 'other' has no module connected.",
    ]);
  });

  it("removes a label with its module, its module's variable and its connection", () => {
    let state = routeState();
    const router = state.nodes[1]!.id;
    state = apply(state, editLabels, { nodeId: router, edit: { op: 'add', label: 'other' } });
    const next = apply(state, editLabels, { nodeId: router, edit: { op: 'remove', index: 0 } });
    expect(branchData(next).config.labels).toEqual(['order', 'other']);
    expect(Object.keys(branchData(next).variables)).toEqual([
      'router_decision/state',
      'order_topic/state',
    ]);
    // order's edge moved from slot 1 to slot 0; account's is gone.
    expect(next.edges.filter((e) => e.source === router).map((e) => e.sourceHandle)).toEqual([
      'out:0',
    ]);
  });

  it('refuses fewer than two labels, a repeated one or an empty one', () => {
    const state = routeState();
    const nodeId = state.nodes[1]!.id;
    expect(reason(state, editLabels, { nodeId, edit: { op: 'remove', index: 0 } })).toBe(
      'A decision needs at least two labels to choose from.',
    );
    expect(reason(state, editLabels, { nodeId, edit: { op: 'add', label: 'order' } })).toBe(
      "The label 'order' is there twice; labels must differ.",
    );
    expect(
      reason(state, editLabels, { nodeId, edit: { op: 'rename', index: 0, label: ' ' } }),
    ).toBe('A label cannot be empty.');
    const withInput = apply(makeState(), addNode, { kind: 'Input' });
    expect(
      reason(withInput, editLabels, {
        nodeId: withInput.nodes[0]!.id,
        edit: { op: 'add', label: 'x' },
      }),
    ).toBe('An Input has no labels.');
  });

  it("updates a Decision's default instructions, keeps written ones", () => {
    let state = apply(makeState(), addNode, { kind: 'Decision' });
    const nodeId = state.nodes[0]!.id;
    state = apply(state, editLabels, { nodeId, edit: { op: 'add', label: 'maybe' } });
    const data = state.nodes[0]!.data;
    expect(data.kind === 'Decision' && data.variable.instructions).toContain(
      '["yes", "no", "maybe"]',
    );
  });
});

describe('setQuestion', () => {
  it('sets the question, and refuses an empty one', () => {
    const state = routeState();
    const nodeId = state.nodes[1]!.id;
    const next = apply(state, setQuestion, { nodeId, question: 'Account or order?' });
    expect(branchData(next).config.question).toBe('Account or order?');
    expect(reason(state, setQuestion, { nodeId, question: '  ' })).toBe(
      'The question cannot be empty.',
    );
  });
});
