import { useReactFlow } from '@xyflow/react';
import { useMemo } from 'react';
import { downloadText } from '@/lib/download';
import { addNode } from '../actions/addNode';
import { copySelection, paste, type ClipboardPayload } from '../actions/clipboard';
import { deleteSelection } from '../actions/deleteSelection';
import { applyLayout, computeLayout } from '../actions/layout';
import { loadDocument, newProgram, splitProgramFile } from '../actions/loadDocument';
import type { ModuleKind } from '../model/document';
import { graphToDocument } from '../model/graph';
import { nodeRect } from '../model/placement';
import { programProblems } from '../model/rules';
import { redo, undo, useEditorStore } from '../store/editorStore';

/** Wait (a little) until React Flow has measured every node, so elk knows their sizes. */
async function untilMeasured(timeoutMs = 600): Promise<void> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    if (useEditorStore.getState().nodes.every((n) => n.measured?.width)) return;
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
}

// One clipboard for the page: copies survive switching programs, as in a desktop app.
let clipboard: ClipboardPayload | null = null;

/** The editor's commands, shared by the toolbar, the palette and the keyboard shortcuts. */
export function useEditorCommands() {
  const flow = useReactFlow();
  return useMemo(() => {
    const store = useEditorStore;
    const fitSoon = () =>
      requestAnimationFrame(() => void flow.fitView({ padding: 0.2, duration: 200 }));
    const layout = async () => {
      if (store.getState().nodes.length === 0) return;
      await untilMeasured();
      const { nodes, edges } = store.getState();
      try {
        const positions = await computeLayout(nodes, edges);
        if (store.getState().run(applyLayout, { positions })) fitSoon();
      } catch (error) {
        store.getState().notify('error', `Auto-layout failed: ${(error as Error).message}`);
      }
    };
    return {
      add: (kind: ModuleKind) => {
        const { x, y, zoom } = flow.getViewport();
        const pane = document.querySelector('.react-flow')?.getBoundingClientRect();
        // The first module lands in the middle of the view; later ones beside the last one.
        const origin = pane
          ? { x: (pane.width / 2 - x) / zoom - 120, y: (pane.height / 2 - y) / zoom - 70 }
          : undefined;
        // With one module selected, the new one follows it (placed to its right, wired to it).
        const selected = store.getState().nodes.filter((n) => n.selected);
        const after = selected.length === 1 ? selected[0]?.id : undefined;
        if (!store.getState().run(addNode, { kind, origin, after }) || !pane) return;
        // Bring the new module into view when it landed off screen.
        const added = store.getState().nodes.at(-1);
        if (!added) return;
        const rect = nodeRect(added);
        const left = rect.x * zoom + x;
        const top = rect.y * zoom + y;
        if (
          left < 0 ||
          top < 0 ||
          left + rect.width * zoom > pane.width ||
          top + rect.height * zoom > pane.height
        )
          void flow.setCenter(rect.x + rect.width / 2, rect.y + rect.height / 2, {
            zoom,
            duration: 200,
          });
      },
      newProgram: () => {
        if (store.getState().run(newProgram, undefined)) fitSoon();
      },
      undo: () => undo(),
      redo: () => redo(),
      delete: () => store.getState().run(deleteSelection, undefined),
      copy: () => {
        const payload = copySelection(store.getState());
        if (!payload) return store.getState().notify('info', 'Select modules to copy.');
        clipboard = payload;
        store
          .getState()
          .notify(
            'info',
            `Copied ${payload.nodes.length} module${payload.nodes.length === 1 ? '' : 's'}.`,
          );
      },
      paste: () => {
        if (!clipboard) return store.getState().notify('info', 'Nothing copied yet.');
        store.getState().run(paste, { payload: clipboard });
      },
      layout,
      fitView: fitSoon,
      exportFile: () => {
        const state = store.getState();
        const problems = programProblems(state);
        if (problems.length > 0) {
          const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
          state.notify('error', `Cannot export yet: ${problems[0]?.message}${more}`);
          return;
        }
        const { document: doc, layout: positions } = graphToDocument(state);
        downloadText(
          `${state.meta.name || 'program'}.json`,
          `${JSON.stringify({ ...doc, layout: positions }, null, 2)}\n`,
        );
        state.notify('info', `Exported ${state.meta.name}.json.`);
      },
      importText: async (text: string, filename: string) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          store.getState().notify('error', `${filename} is not JSON: ${(error as Error).message}`);
          return;
        }
        const { document: doc, layout: positions } = splitProgramFile(parsed);
        if (!store.getState().run(loadDocument, { document: doc, layout: positions })) return;
        if (!positions) await layout();
        else fitSoon();
        store.getState().notify('info', `Opened ${filename}.`);
      },
    };
  }, [flow]);
}

export type EditorCommands = ReturnType<typeof useEditorCommands>;
