/**
 * The editor's state: the program graph, the data model library, and UI notices.
 *
 * Every change goes through a named action (see ../actions) and becomes one undo step
 * (zundo). Selection, measured sizes and in-progress drags are not history: a drag is
 * recorded once, when it ends.
 */
import {
  applyEdgeChanges,
  applyNodeChanges,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import { temporal } from 'zundo';
import { create } from 'zustand';
import { jsonEqual } from '@/lib/json';
import type { Action, EditorDocumentState } from '../actions/types';
import { STARTER_MODELS, starterGraph } from '../model/defaults';
import { emptyGraph, type ProgramNode } from '../model/graph';
import { loadLibrary } from '@/lib/datamodel/library';
import type { SavedDataModel } from '../model/document';

export type Notice = { tone: 'error' | 'info'; text: string; at: number };

export type EditorStore = EditorDocumentState & {
  notice: Notice | null;
  /** Apply an action; a refusal becomes the notice and leaves the state unchanged. */
  run: <Args>(action: Action<Args>, args: Args) => boolean;
  /** Like `run`, but hands the refusal back (for a field to show beside itself). */
  attempt: <Args>(action: Action<Args>, args: Args) => string | null;
  notify: (tone: Notice['tone'], text: string) => void;
  onNodesChange: (changes: NodeChange<ProgramNode>[]) => void;
  onEdgesChange: (changes: EdgeChange[]) => void;
  select: (nodeIds: string[]) => void;
};

/** What history stores: the document without UI-only node and edge fields. */
export function historyOf(state: EditorDocumentState): EditorDocumentState {
  return {
    nodes: state.nodes.map(
      ({ id, type, position, data }) => ({ id, type, position, data }) as ProgramNode,
    ),
    edges: state.edges.map(({ id, source, target, sourceHandle, targetHandle }) => ({
      id,
      source,
      target,
      sourceHandle,
      targetHandle,
    })),
    meta: state.meta,
    dataModels: state.dataModels,
  };
}

export function createEditorStore(initial?: Partial<EditorDocumentState>) {
  let dragStart: EditorDocumentState | null = null;
  const store = create<EditorStore>()(
    temporal(
      (set, get) => ({
        ...emptyGraph(),
        dataModels: STARTER_MODELS,
        ...initial,
        notice: null,
        run: (action, args) => {
          const result = action.perform(get(), args);
          if (!result.ok) {
            get().notify('error', result.reason);
            return false;
          }
          set({ ...result.state, notice: null });
          return true;
        },
        attempt: (action, args) => {
          const result = action.perform(get(), args);
          if (!result.ok) return result.reason;
          set({ ...result.state, notice: null });
          return null;
        },
        notify: (tone, text) => set({ notice: { tone, text, at: Date.now() } }),
        onNodesChange: (changes) => {
          const history = store.temporal.getState();
          const dragging = changes.some((c) => c.type === 'position' && c.dragging);
          const dropped = changes.some((c) => c.type === 'position' && c.dragging === false);
          if (dragging && !dragStart) {
            dragStart = historyOf(get());
            history.pause();
          }
          // Removals go through the deleteSelection action, so the Delete key stays one path.
          const applied = changes.filter((c) => c.type !== 'remove' && c.type !== 'add');
          set({ nodes: applyNodeChanges(applied, get().nodes) });
          if (dropped && dragStart) {
            const before = dragStart;
            dragStart = null;
            history.resume();
            if (!jsonEqual(before.nodes, historyOf(get()).nodes)) {
              store.temporal.setState((s) => ({
                pastStates: [...s.pastStates, before],
                futureStates: [],
              }));
            }
          }
        },
        onEdgesChange: (changes) => {
          const applied = changes.filter((c) => c.type !== 'remove' && c.type !== 'add');
          set({ edges: applyEdgeChanges(applied, get().edges) });
        },
        select: (nodeIds) => {
          const wanted = new Set(nodeIds);
          set({
            nodes: get().nodes.map((n) =>
              Boolean(n.selected) === wanted.has(n.id) ? n : { ...n, selected: wanted.has(n.id) },
            ),
            edges: get().edges.map((e) => (e.selected ? { ...e, selected: false } : e)),
          });
        },
      }),
      {
        partialize: (state) => historyOf(state) as EditorStore,
        equality: (past, current) => jsonEqual(past, current),
        limit: 200,
      },
    ),
  );
  return store;
}

export type EditorStoreApi = ReturnType<typeof createEditorStore>;

// A copy this browser kept before the account stored the library shows until the
// account's arrives (store/librarySync).
export const useEditorStore = createEditorStore({
  ...starterGraph(),
  dataModels: loadLibrary<SavedDataModel>() ?? STARTER_MODELS,
});

export function undo(store: EditorStoreApi = useEditorStore): void {
  store.temporal.getState().undo();
}

export function redo(store: EditorStoreApi = useEditorStore): void {
  store.temporal.getState().redo();
}
