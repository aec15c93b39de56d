import { fromJsonSchema, toJsonSchema, type DataModelDef } from '@/lib/datamodel/schema';
import { isJsonObject, jsonEqual } from '@/lib/json';
import { editorClassPath, type SavedDataModel } from '../model/document';
import { ownDataModel } from '../model/graph';
import { withDataModel } from './updateModule';
import { change, defineAction, refuse } from './types';

/**
 * Add a model to the library, or replace one (`previousName` when it was renamed).
 * Modules using the old model are switched to the new one in the same undo step.
 */
export const saveDataModel = defineAction<{ model: SavedDataModel; previousName?: string }>({
  name: 'saveDataModel',
  label: 'Save data model',
  perform: (state, { model, previousName }) => {
    const oldName = previousName ?? model.name;
    if (model.name !== oldName && state.dataModels.some((m) => m.name === model.name)) {
      return refuse(`A data model named '${model.name}' already exists.`);
    }
    const existing = state.dataModels.find((m) => m.name === oldName);
    // A model changed here is no longer the Python class it came from.
    const unchanged =
      existing && existing.name === model.name && jsonEqual(existing.schema, model.schema);
    const saved: SavedDataModel = {
      ...model,
      class: unchanged ? existing.class : editorClassPath(model.name),
    };
    const users = dependents(state.dataModels, oldName);
    if (model.name !== oldName && users.length > 0) {
      return refuse(`'${oldName}' is nested in ${users.join(', ')}; rename it there first.`);
    }
    const exists = Boolean(existing);
    let dataModels = exists
      ? state.dataModels.map((m) => (m.name === oldName ? saved : m))
      : [...state.dataModels, saved];
    // Models that nest this one carry a copy in their $defs: rebuild them too.
    dataModels = refreshDependents(dataModels, saved.name);
    const changed = new Map(dataModels.map((m) => [m.name, m]));
    const nodes = state.nodes.map((n) => {
      const own = ownDataModel(n);
      if (!own) return n;
      const name = own.name === oldName ? saved.name : own.name;
      const next = changed.get(name);
      return next && !jsonEqual(next.schema, own.schema) ? withDataModel(n, next) : n;
    });
    return change({ dataModels, nodes });
  },
});

export const deleteDataModel = defineAction<{ name: string }>({
  name: 'deleteDataModel',
  label: 'Delete data model',
  perform: (state, { name }) => {
    const users = state.nodes.filter((n) => ownDataModel(n)?.name === name);
    if (users.length > 0) {
      const names = users.map((n) => `'${n.data.config.name}'`).join(', ');
      return refuse(`'${name}' is used by ${names}; give them another model first.`);
    }
    const nesting = dependents(state.dataModels, name);
    if (nesting.length > 0) return refuse(`'${name}' is nested in ${nesting.join(', ')}.`);
    return change({ dataModels: state.dataModels.filter((m) => m.name !== name) });
  },
});

/** Models of a loaded program join the library; a same-named one with another schema is replaced. */
export function mergeModels(
  library: SavedDataModel[],
  incoming: SavedDataModel[],
): SavedDataModel[] {
  const merged = [...library];
  for (const model of incoming) {
    const index = merged.findIndex((m) => m.name === model.name);
    if (index === -1) merged.push(model);
    else if (!jsonEqual(merged[index]?.schema, model.schema)) merged[index] = model;
  }
  return merged;
}

/** Names of library models whose schema nests `name` in its `$defs`. */
export function dependents(library: SavedDataModel[], name: string): string[] {
  return library
    .filter((m) => m.name !== name && isJsonObject(m.schema.$defs) && name in m.schema.$defs)
    .map((m) => m.name);
}

function refreshDependents(library: SavedDataModel[], name: string): SavedDataModel[] {
  const defs = new Map<string, DataModelDef>();
  for (const model of library) {
    try {
      defs.set(model.name, { ...fromJsonSchema(model.schema, model.name).model, name: model.name });
    } catch {
      // Schemas the designer cannot read are left as they are.
    }
  }
  const users = new Set(dependents(library, name));
  return library.map((model) => {
    const def = defs.get(model.name);
    if (!users.has(model.name) || !def) return model;
    try {
      const schema = toJsonSchema(def, (n) => defs.get(n));
      return jsonEqual(schema, model.schema) ? model : { ...model, schema };
    } catch {
      return model;
    }
  });
}
