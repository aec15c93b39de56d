import type { XYPosition } from '@xyflow/react';
import { createNode, STARTER_MODELS, uniqueName } from '../model/defaults';
import { MODULE_CLASSES, type ModuleKind, type SavedDataModel } from '../model/document';
import { makeEdge, moduleName } from '../model/graph';
import { checkConnection } from '../model/rules';
import { change, defineAction, type EditorDocumentState } from './types';

function childCount(state: EditorDocumentState, id: string): number {
  return state.edges.filter((e) => e.source === id).length;
}

export type AddNodeArgs = {
  kind: ModuleKind;
  position?: XYPosition;
  dataModel?: SavedDataModel;
  /** A module to read from: the new one goes to its right and is wired to it when allowed. */
  after?: string;
};

/** Place a new module, selected, with a fresh name and a sensible data model. */
export const addNode = defineAction<AddNodeArgs>({
  name: 'addNode',
  label: 'Add module',
  perform: (state, { kind, position, dataModel, after }) => {
    const name = uniqueName(MODULE_CLASSES[kind].baseName, state.nodes.map(moduleName));
    const preferred = kind === 'Input' ? 'Query' : 'Answer';
    const model =
      dataModel ??
      state.dataModels.find((m) => m.name === preferred) ??
      state.dataModels[0] ??
      (STARTER_MODELS.find((m) => m.name === preferred) as SavedDataModel);
    const parent = after ? state.nodes.find((n) => n.id === after) : undefined;
    const rightmost = state.nodes.reduce((x, n) => Math.max(x, n.position.x), -320);
    const place = parent
      ? { x: parent.position.x + 320, y: parent.position.y + 24 * childCount(state, parent.id) }
      : (position ?? { x: rightmost + 320, y: 80 });
    const node = createNode(kind, name, model, place);
    node.selected = true;
    const nodes = [...state.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), node];
    const edges = state.edges.map((e) => (e.selected ? { ...e, selected: false } : e));
    if (parent && checkConnection({ nodes, edges }, parent.id, node.id).ok) {
      edges.push(makeEdge(parent.id, node.id));
    }
    return change({ nodes, edges });
  },
});
