import type { XYPosition } from '@xyflow/react';
import { createNode, STARTER_MODELS, uniqueName } from '../model/defaults';
import { MODULE_CLASSES, type ModuleKind, type SavedDataModel } from '../model/document';
import {
  makeEdge,
  moduleName,
  OUTPUT_HANDLE,
  outputCount,
  slotHandle,
  slotOfHandle,
  type ProgramEdge,
  type ProgramNode,
} from '../model/graph';
import { freePosition, nodeRect } from '../model/placement';
import { checkConnection } from '../model/rules';
import { change, defineAction } from './types';

export type AddNodeArgs = {
  kind: ModuleKind;
  /** Exactly where to put it (a drop from the palette); otherwise a free spot is found. */
  position?: XYPosition;
  /** Where the first module of an empty canvas goes (the middle of the view). */
  origin?: XYPosition;
  dataModel?: SavedDataModel;
  /** A module to read from: the new one goes to its right and is wired to it when allowed. */
  after?: string;
};

/**
 * The output a module added after `parent` reads: its one output, or, for a module with
 * several (a Branch's labels), the first that nothing reads yet (the first when all are).
 */
function followedHandle(parent: ProgramNode, edges: ProgramEdge[]): string {
  const count = outputCount(parent, edges.filter((e) => e.target === parent.id).length);
  if (count === 1) return OUTPUT_HANDLE;
  const read = new Set(
    edges.filter((e) => e.source === parent.id).map((e) => slotOfHandle(e.sourceHandle)),
  );
  const free = [...Array(count).keys()].find((slot) => !read.has(slot));
  return slotHandle(free ?? 0);
}

/**
 * Place a new module, selected, with a fresh name and a sensible data model: where it was
 * dropped, or beside the module it follows (else the one added last), clear of the others.
 */
export const addNode = defineAction<AddNodeArgs>({
  name: 'addNode',
  label: 'Add module',
  perform: (state, { kind, position, origin, dataModel, after }) => {
    const name = uniqueName(MODULE_CLASSES[kind].baseName, state.nodes.map(moduleName));
    const preferred = kind === 'Input' ? 'Query' : 'Answer';
    const model =
      dataModel ??
      state.dataModels.find((m) => m.name === preferred) ??
      state.dataModels[0] ??
      (STARTER_MODELS.find((m) => m.name === preferred) as SavedDataModel);
    const parent = after ? state.nodes.find((n) => n.id === after) : undefined;
    const anchor = parent ?? state.nodes.at(-1);
    const place =
      position ??
      freePosition(state.nodes.map(nodeRect), anchor ? nodeRect(anchor) : null, undefined, origin);
    const node = createNode(kind, name, model, place);
    node.selected = true;
    const nodes = [...state.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), node];
    const edges = state.edges.map((e) => (e.selected ? { ...e, selected: false } : e));
    if (parent) {
      const handle = followedHandle(parent, edges);
      if (checkConnection({ nodes, edges }, parent.id, node.id, handle).ok) {
        edges.push(makeEdge(parent.id, node.id, handle));
      }
    }
    return change({ nodes, edges });
  },
});
