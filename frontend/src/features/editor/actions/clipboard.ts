import { cloneJson } from '@/lib/json';
import {
  makeEdge,
  moduleName,
  newId,
  OUTPUT_HANDLE,
  type ProgramEdge,
  type ProgramNode,
} from '../model/graph';
import { heldModuleNames, renamedData } from '../model/rename';
import { uniqueName } from '../model/defaults';
import { change, defineAction, refuse } from './types';
import type { EditorDocumentState } from './types';

export const CLIPBOARD_KIND = 'studio.editor.clipboard';

/** What Ctrl+C puts on the clipboard: the selected modules and the edges between them. */
export type ClipboardPayload = {
  kind: typeof CLIPBOARD_KIND;
  nodes: Pick<ProgramNode, 'type' | 'position' | 'data'>[];
  /** `sourceHandle`: the slot an edge leaves a Branch from (absent: a module's one output). */
  edges: { source: number; target: number; sourceHandle?: string }[];
};

export function copySelection(state: EditorDocumentState): ClipboardPayload | null {
  const selected = state.nodes.filter((n) => n.selected);
  if (selected.length === 0) return null;
  const index = new Map(selected.map((n, i) => [n.id, i]));
  return {
    kind: CLIPBOARD_KIND,
    nodes: selected.map(
      (n) => cloneJson({ type: n.type, position: n.position, data: n.data }) as ProgramNode,
    ),
    edges: state.edges
      .filter((e) => index.has(e.source) && index.has(e.target))
      .map((e) => ({
        source: index.get(e.source) as number,
        target: index.get(e.target) as number,
        ...(e.sourceHandle && e.sourceHandle !== OUTPUT_HANDLE
          ? { sourceHandle: e.sourceHandle }
          : {}),
      })),
  };
}

export function isClipboardPayload(value: unknown): value is ClipboardPayload {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === CLIPBOARD_KIND &&
    Array.isArray((value as ClipboardPayload).nodes)
  );
}

/** Paste copies under fresh names, shifted so they do not hide the originals; they become the selection. */
export const paste = defineAction<{ payload: ClipboardPayload; offset?: number }>({
  name: 'paste',
  label: 'Paste',
  shortcut: 'Ctrl+V',
  perform: (state, { payload, offset = 40 }) => {
    if (payload.nodes.length === 0) return refuse('The clipboard is empty.');
    const taken = state.nodes.flatMap((n) => [moduleName(n), ...heldModuleNames(n.data)]);
    const pasted: ProgramNode[] = payload.nodes.map((source) => {
      // `generator_1` pasted becomes `generator_2`, not `generator_1_1`.
      const name = uniqueName(source.data.config.name.replace(/_\d+$/, ''), taken);
      taken.push(name);
      const data = renamedData(source.data, name, taken);
      return {
        id: newId(data.kind.toLowerCase()),
        type: data.kind,
        position: { x: source.position.x + offset, y: source.position.y + offset },
        data,
        selected: true,
      } as ProgramNode;
    });
    const edges: ProgramEdge[] = payload.edges
      .filter((e) => pasted[e.source] && pasted[e.target])
      .map((e) =>
        makeEdge(
          (pasted[e.source] as ProgramNode).id,
          (pasted[e.target] as ProgramNode).id,
          e.sourceHandle ?? OUTPUT_HANDLE,
        ),
      );
    return change({
      nodes: [...state.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), ...pasted],
      edges: [...state.edges.map((e) => (e.selected ? { ...e, selected: false } : e)), ...edges],
    });
  },
});
