/**
 * The data model library lives in the account (/api/data-models/). What the editor holds
 * is mirrored there by name: these pure helpers say which requests make the stored
 * library equal to the editor's.
 */
import type { StoredDataModel } from '@/lib/api/ops/dataModelsList';
import { jsonEqual } from '@/lib/json';
import type { DataModelBody } from '../api/dataModelsCreate';
import type { JsonSchema } from '@/lib/datamodel/schema';
import { editorClassPath, type SavedDataModel } from './document';

/** A model the server holds, by the id its updates and deletes need. */
export type StoredModel = { id: number; model: SavedDataModel };

export type SyncPlan = {
  remove: StoredModel[];
  update: { id: number; model: SavedDataModel }[];
  create: SavedDataModel[];
};

/** The editor's form of a stored model (a drawn model's class is `studio_editor.<Name>`). */
export function fromStored(row: StoredDataModel): StoredModel {
  return {
    id: row.id,
    model: {
      name: row.name,
      class: row.class_path || editorClassPath(row.name),
      schema: row.schema as JsonSchema,
    },
  };
}

export function toBody(model: SavedDataModel): DataModelBody {
  return { name: model.name, class_path: model.class, schema: model.schema };
}

/**
 * The requests that turn `stored` into `wanted`, matched by name: a renamed model is
 * removed under its old name and created under the new one. Removals come first, so a
 * name freed by one change can be taken by another.
 */
export function planSync(stored: StoredModel[], wanted: SavedDataModel[]): SyncPlan {
  const byName = new Map(stored.map((row) => [row.model.name, row]));
  const wantedNames = new Set(wanted.map((m) => m.name));
  const plan: SyncPlan = {
    remove: stored.filter((row) => !wantedNames.has(row.model.name)),
    update: [],
    create: [],
  };
  for (const model of wanted) {
    const row = byName.get(model.name);
    if (!row) plan.create.push(model);
    else if (row.model.class !== model.class || !jsonEqual(row.model.schema, model.schema))
      plan.update.push({ id: row.id, model });
  }
  return plan;
}

export function isEmptyPlan(plan: SyncPlan): boolean {
  return plan.remove.length + plan.update.length + plan.create.length === 0;
}

/**
 * The library the editor shows once the account's has arrived: the stored models; then
 * those kept in this browser before the account stored them (`legacy`, migrated once)
 * under names the account lacks; then `local` ones (in use on the canvas, or added while
 * the request was out), which replace a same-named stored one as opening a program does.
 * An account with nothing gets `starters`.
 */
export function reconcile({
  stored,
  legacy,
  local,
  starters,
}: {
  stored: SavedDataModel[];
  legacy: SavedDataModel[];
  local: SavedDataModel[];
  starters: SavedDataModel[];
}): SavedDataModel[] {
  const library = [...stored];
  for (const model of legacy) {
    if (!library.some((m) => m.name === model.name)) library.push(model);
  }
  for (const model of local) {
    const index = library.findIndex((m) => m.name === model.name);
    if (index === -1) library.push(model);
    else if (!jsonEqual(library[index]?.schema, model.schema)) library[index] = model;
  }
  return library.length > 0 ? library : starters;
}
