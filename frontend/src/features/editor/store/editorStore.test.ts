import { describe, expect, it } from 'vitest';
import { addNode } from '../actions/addNode';
import { connect } from '../actions/connect';
import { deleteSelection } from '../actions/deleteSelection';
import { moduleName } from '../model/graph';
import { createEditorStore, redo, undo } from './editorStore';

function names(store: ReturnType<typeof createEditorStore>) {
  return store.getState().nodes.map(moduleName);
}

describe('editor store', () => {
  it('makes each action one undo step, and redo replays it', () => {
    const store = createEditorStore();
    store.getState().run(addNode, { kind: 'Input' });
    store.getState().run(addNode, { kind: 'Generator' });
    const [input, gen] = store.getState().nodes.map((n) => n.id);
    store.getState().run(connect, { source: input!, target: gen! });
    expect(store.getState().edges).toHaveLength(1);
    undo(store);
    expect(store.getState().edges).toHaveLength(0);
    undo(store);
    expect(names(store)).toEqual(['input_layer']);
    redo(store);
    redo(store);
    expect(names(store)).toEqual(['input_layer', 'generator']);
    expect(store.getState().edges).toHaveLength(1);
  });

  it('reports a refusal as a notice and records nothing', () => {
    const store = createEditorStore();
    expect(store.getState().run(deleteSelection, undefined)).toBe(false);
    expect(store.getState().notice).toMatchObject({ tone: 'error', text: 'Nothing is selected.' });
    expect(store.temporal.getState().pastStates).toHaveLength(0);
  });

  it('does not record selection, and records a drag once', () => {
    const store = createEditorStore();
    store.getState().run(addNode, { kind: 'Input', position: { x: 0, y: 0 } });
    const id = store.getState().nodes[0]!.id;
    const steps = () => store.temporal.getState().pastStates.length;
    const before = steps();
    store.getState().onNodesChange([{ type: 'select', id, selected: false }]);
    store
      .getState()
      .onNodesChange([{ type: 'dimensions', id, dimensions: { width: 240, height: 120 } }]);
    expect(steps()).toBe(before);
    for (const x of [10, 20, 30]) {
      store
        .getState()
        .onNodesChange([{ type: 'position', id, position: { x, y: 0 }, dragging: true }]);
    }
    store
      .getState()
      .onNodesChange([{ type: 'position', id, position: { x: 40, y: 0 }, dragging: false }]);
    expect(steps()).toBe(before + 1);
    expect(store.getState().nodes[0]!.position).toEqual({ x: 40, y: 0 });
    undo(store);
    expect(store.getState().nodes[0]!.position).toEqual({ x: 0, y: 0 });
  });
});
