import { fromJsonSchema, toJsonSchema } from '@/lib/datamodel/schema';
import { cloneJson } from '@/lib/json';
import {
  DocumentError,
  editorClassPath,
  type EditorLayout,
  type SavedDataModel,
} from '../model/document';
import { starterGraph } from '../model/defaults';
import { documentToGraph, ownDataModel } from '../model/graph';
import { mergeModels } from './dataModels';
import { change, defineAction, refuse } from './types';

/** Replace the canvas with a saved program (from a file or, later, the API). */
export const loadDocument = defineAction<{ document: unknown; layout?: EditorLayout | null }>({
  name: 'loadDocument',
  label: 'Open program',
  perform: (state, { document, layout }) => {
    try {
      const graph = documentToGraph(document, layout);
      const models = graph.nodes.flatMap((n) => {
        const own = ownDataModel(n);
        return own ? [cloneJson(own), ...nestedModels(own)] : [];
      });
      return change({ ...graph, dataModels: mergeModels(state.dataModels, models) });
    } catch (error) {
      if (error instanceof DocumentError)
        return refuse(`Cannot open this program: ${error.message}.`);
      throw error;
    }
  },
});

/** A program file as the editor exports it: the engine's document plus a `layout` key. */
export function splitProgramFile(value: unknown): {
  document: unknown;
  layout: EditorLayout | null;
} {
  if (typeof value !== 'object' || value === null) return { document: value, layout: null };
  const { layout, ...document } = value as Record<string, unknown>;
  const valid =
    typeof layout === 'object' &&
    layout !== null &&
    typeof (layout as EditorLayout).nodes === 'object';
  return { document, layout: valid ? (layout as EditorLayout) : null };
}

/** The models a schema nests in `$defs`, as library entries of their own. */
export function nestedModels(model: SavedDataModel): SavedDataModel[] {
  try {
    const { nested } = fromJsonSchema(model.schema, model.name);
    const lookup = (name: string) => nested.find((n) => n.name === name);
    return nested.map((def) => ({
      name: def.name,
      class: editorClassPath(def.name),
      schema: toJsonSchema(def, lookup),
    }));
  } catch {
    // A schema the designer cannot read still works in programs; it just brings no parts.
    return [];
  }
}

/** Start over with the starter program; the data model library stays. */
export const newProgram = defineAction<void>({
  name: 'newProgram',
  label: 'New program',
  perform: () => change({ ...starterGraph() }),
});
