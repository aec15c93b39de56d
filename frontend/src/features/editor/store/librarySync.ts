/**
 * The data model library is kept in the account: `loadAccountLibrary` puts the stored one
 * in the editor (migrating, once, what this browser kept before), and `pushLibrary` sends
 * each later change of the editor's library as the few requests `planSync` names. Pushes
 * run one after another; a burst of changes is sent as its last state.
 */
import { create } from 'zustand';
import { listDataModels } from '@/lib/api/ops/dataModelsList';
import { clearLibrary, loadLibrary } from '@/lib/datamodel/library';
import { jsonEqual } from '@/lib/json';
import { createDataModel } from '../api/dataModelsCreate';
import { destroyDataModel } from '../api/dataModelsDestroy';
import { updateDataModel } from '../api/dataModelsUpdate';
import { STARTER_MODELS } from '../model/defaults';
import type { SavedDataModel } from '../model/document';
import { ownDataModel } from '../model/graph';
import {
  fromStored,
  isEmptyPlan,
  planSync,
  reconcile,
  toBody,
  type StoredModel,
} from '../model/librarySync';
import { useEditorStore, type EditorStoreApi } from './editorStore';

export type LibraryStatus = {
  /** loading: not arrived yet; saved / saving: mirrored in the account; offline: not. */
  state: 'loading' | 'saved' | 'saving' | 'offline';
  error: string | null;
};

export const useLibraryStatus = create<LibraryStatus>(() => ({ state: 'loading', error: null }));

let stored = new Map<string, StoredModel>();
let active = false;
let generation = 0;
let wanted: SavedDataModel[] | null = null;
let queue: Promise<void> = Promise.resolve();

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function flush(mine: number, store: EditorStoreApi): Promise<void> {
  const models = wanted;
  wanted = null;
  if (!models || !active || mine !== generation) return;
  const plan = planSync([...stored.values()], models);
  if (isEmptyPlan(plan)) return;
  useLibraryStatus.setState({ state: 'saving', error: null });
  const problems: string[] = [];
  const attempt = async (name: string, request: () => Promise<void>) => {
    try {
      await request();
    } catch (error) {
      problems.push(`'${name}': ${reason(error)}`);
    }
  };
  for (const row of plan.remove)
    await attempt(row.model.name, async () => {
      await destroyDataModel(row.id);
      stored.delete(row.model.name);
    });
  for (const { id, model } of plan.update)
    await attempt(model.name, async () => {
      const saved = await updateDataModel(id, toBody(model));
      stored.set(model.name, { id: saved.id, model });
    });
  for (const model of plan.create)
    await attempt(model.name, async () => {
      const saved = await createDataModel(toBody(model));
      stored.set(model.name, { id: saved.id, model });
    });
  if (mine !== generation) return;
  if (problems.length > 0) {
    const error = problems.join('; ');
    useLibraryStatus.setState({ state: 'offline', error });
    store.getState().notify('error', `The data model library was not saved: ${error}`);
  } else useLibraryStatus.setState({ state: 'saved', error: null });
}

/** Mirror the editor's library in the account (nothing before it was loaded from there). */
export function pushLibrary(
  models: SavedDataModel[],
  store: EditorStoreApi = useEditorStore,
): Promise<void> {
  if (!active) return queue;
  wanted = models;
  const mine = generation;
  queue = queue.then(() => flush(mine, store));
  return queue;
}

/**
 * Put the library the account stores in the editor (no undo step: history entries made
 * before take it as it is, so an undo never drops a stored model), with the models the
 * canvas uses and any kept in this browser before; then store what the account lacks and
 * forget the browser's copy.
 */
export async function loadAccountLibrary(store: EditorStoreApi = useEditorStore): Promise<void> {
  const mine = ++generation;
  active = false;
  wanted = null;
  useLibraryStatus.setState({ state: 'loading', error: null });
  const before = store.getState().dataModels;
  let rows: StoredModel[];
  try {
    rows = (await listDataModels()).map(fromStored);
  } catch (error) {
    if (mine === generation)
      useLibraryStatus.setState({
        state: 'offline',
        error: `it could not be loaded (${reason(error)})`,
      });
    return;
  }
  if (mine !== generation) return;
  stored = new Map(rows.map((row) => [row.model.name, row]));
  const legacy = loadLibrary<SavedDataModel>() ?? [];
  const state = store.getState();
  const added = state.dataModels.filter(
    (m) => !before.some((b) => b.name === m.name && jsonEqual(b.schema, m.schema)),
  );
  const library = reconcile({
    stored: rows.map((row) => row.model),
    legacy,
    local: [...state.nodes.flatMap((n) => ownDataModel(n) ?? []), ...added],
    starters: STARTER_MODELS,
  });
  const history = store.temporal.getState();
  history.pause();
  store.setState({ dataModels: library });
  history.resume();
  store.temporal.setState((s) => ({
    pastStates: s.pastStates.map((past) => ({ ...past, dataModels: library })),
    futureStates: s.futureStates.map((future) => ({ ...future, dataModels: library })),
  }));
  active = true;
  useLibraryStatus.setState({ state: 'saved', error: null });
  await pushLibrary(library, store);
  if (mine === generation && loadLibrary() !== null) clearLibrary();
}

/** Forget the account's library (tests; a signed-out page). */
export function resetLibrarySync(): void {
  generation += 1;
  active = false;
  wanted = null;
  stored = new Map();
  queue = Promise.resolve();
  useLibraryStatus.setState({ state: 'loading', error: null });
}
