import { moduleName } from '../model/graph';
import { change, defineAction, refuse } from './types';

export type DeleteArgs = { nodeIds?: string[]; edgeIds?: string[] } | void;

/** Remove the selected modules (with their edges) and the selected edges. */
export const deleteSelection = defineAction<DeleteArgs>({
  name: 'deleteSelection',
  label: 'Delete',
  shortcut: 'Delete',
  perform: (state, args) => {
    const nodeIds = new Set(
      args?.nodeIds ?? state.nodes.filter((n) => n.selected).map((n) => n.id),
    );
    const edgeIds = new Set(
      args?.edgeIds ?? state.edges.filter((e) => e.selected).map((e) => e.id),
    );
    if (nodeIds.size === 0 && edgeIds.size === 0) return refuse('Nothing is selected.');
    const removed = new Set(state.nodes.filter((n) => nodeIds.has(n.id)).map(moduleName));
    return change({
      nodes: state.nodes.filter((n) => !nodeIds.has(n.id)),
      edges: state.edges.filter(
        (e) => !edgeIds.has(e.id) && !nodeIds.has(e.source) && !nodeIds.has(e.target),
      ),
      meta: {
        ...state.meta,
        inputOrder: state.meta.inputOrder.filter((n) => !removed.has(n)),
        outputOrder: state.meta.outputOrder.filter((n) => !removed.has(n)),
      },
    });
  },
});
