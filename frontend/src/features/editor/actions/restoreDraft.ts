import { cloneJson } from '@/lib/json';
import { ownDataModel, type EditorGraph } from '../model/graph';
import { mergeModels } from './dataModels';
import { change, defineAction } from './types';

/**
 * Put a kept draft back on the canvas (one undo step: undo shows the saved version again).
 * Its modules' data models join the library, as when a program is opened.
 */
export const restoreDraft = defineAction<{ graph: EditorGraph }>({
  name: 'restoreDraft',
  label: 'Restore draft',
  perform: (state, { graph }) => {
    const draft = cloneJson(graph);
    const models = draft.nodes.flatMap((n) => {
      const own = ownDataModel(n);
      return own ? [cloneJson(own)] : [];
    });
    return change({
      nodes: draft.nodes.map((n) => ({ ...n, selected: false })),
      edges: draft.edges,
      meta: draft.meta,
      dataModels: mergeModels(state.dataModels, models),
    });
  },
});
