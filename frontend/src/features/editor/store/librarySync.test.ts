import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { deleteDataModel, saveDataModel } from '../actions/dataModels';
import { STARTER_MODELS, starterGraph } from '../model/defaults';
import type { SavedDataModel } from '../model/document';
import { createEditorStore } from './editorStore';
import { loadAccountLibrary, pushLibrary, resetLibrarySync, useLibraryStatus } from './librarySync';

const LEGACY_KEY = 'studio.editor.dataModels.v1';
const [QUERY, ANSWER] = STARTER_MODELS as [SavedDataModel, SavedDataModel];
const NOTES: SavedDataModel = {
  name: 'Notes',
  class: 'studio_editor.Notes',
  schema: {
    type: 'object',
    title: 'Notes',
    properties: { notes: { type: 'string', title: 'Notes' } },
    required: ['notes'],
  },
};
const row = (id: number, model: SavedDataModel) => ({
  id,
  name: model.name,
  class_path: model.class,
  schema: model.schema,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
});

function freshStore() {
  return createEditorStore({ ...starterGraph(), dataModels: structuredClone(STARTER_MODELS) });
}

const settle = () => pushLibrary([]).then(() => undefined);

beforeEach(() => {
  localStorage.clear();
  document.cookie = 'csrftoken=t; path=/';
  resetLibrarySync();
});
afterEach(() => vi.unstubAllGlobals());

describe('the account library', () => {
  it("replaces the editor's library with the account's, without an undo step", async () => {
    const calls = mockFetch({
      'GET /api/data-models/': [200, [row(1, QUERY), row(2, ANSWER), row(3, NOTES)]],
    });
    const store = freshStore();
    await loadAccountLibrary(store);
    expect(store.getState().dataModels.map((m) => m.name)).toEqual(['Query', 'Answer', 'Notes']);
    expect(store.temporal.getState().pastStates).toHaveLength(0);
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]); // nothing to store
    expect(useLibraryStatus.getState().state).toBe('saved');
  });

  it('moves what this browser kept into the account once, then forgets it', async () => {
    localStorage.setItem(LEGACY_KEY, JSON.stringify([QUERY, NOTES]));
    const calls = mockFetch({
      'GET /api/data-models/': [200, [row(1, QUERY), row(2, ANSWER)]],
      'POST /api/data-models/': [201, row(3, NOTES)],
    });
    const store = freshStore();
    await loadAccountLibrary(store);
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts.map((c) => c.body)).toEqual([
      { name: 'Notes', class_path: 'studio_editor.Notes', schema: NOTES.schema },
    ]);
    expect(localStorage.getItem(LEGACY_KEY)).toBeNull();
    expect(store.getState().dataModels.map((m) => m.name)).toEqual(['Query', 'Answer', 'Notes']);
  });

  it('stores the models an empty account needs for the canvas', async () => {
    const calls = mockFetch({
      'GET /api/data-models/': [200, []],
      'POST /api/data-models/': [201, row(9, QUERY)],
    });
    await loadAccountLibrary(freshStore());
    expect(
      calls.filter((c) => c.method === 'POST').map((c) => (c.body as SavedDataModel).name),
    ).toEqual(['Query', 'Answer']);
  });

  it('sends each change of the library: a new model, a changed one, a rename, a removal', async () => {
    const calls = mockFetch({
      'GET /api/data-models/': [200, [row(1, QUERY), row(2, ANSWER)]],
      'POST /api/data-models/': [201, row(3, NOTES)],
      'PUT /api/data-models/3/': [200, row(3, NOTES)],
      'DELETE /api/data-models/3/': [204, undefined],
    });
    const store = freshStore();
    await loadAccountLibrary(store);
    const sent = () => calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.url}`);

    store.getState().run(saveDataModel, { model: NOTES });
    await pushLibrary(store.getState().dataModels, store);
    expect(sent()).toEqual(['POST /api/data-models/']);

    const longer = { ...NOTES, schema: { ...NOTES.schema, description: 'Free text' } };
    store.getState().run(saveDataModel, { model: longer });
    await pushLibrary(store.getState().dataModels, store);
    expect(sent().at(-1)).toBe('PUT /api/data-models/3/');

    const memo = { ...longer, name: 'Memo', schema: { ...longer.schema, title: 'Memo' } };
    store.getState().run(saveDataModel, { model: memo, previousName: 'Notes' });
    await pushLibrary(store.getState().dataModels, store);
    expect(sent().slice(-2)).toEqual(['DELETE /api/data-models/3/', 'POST /api/data-models/']);

    store.getState().run(deleteDataModel, { name: 'Memo' });
    await pushLibrary(store.getState().dataModels, store);
    expect(sent().at(-1)).toBe('DELETE /api/data-models/3/');
    expect(sent()).toHaveLength(5);
    expect(useLibraryStatus.getState()).toEqual({ state: 'saved', error: null });
  });

  it('says so when a change could not be stored', async () => {
    mockFetch({
      'GET /api/data-models/': [200, [row(1, QUERY), row(2, ANSWER)]],
      'POST /api/data-models/': [409, { name: ["a data model named 'Notes' already exists"] }],
    });
    const store = freshStore();
    await loadAccountLibrary(store);
    store.getState().run(saveDataModel, { model: NOTES });
    await pushLibrary(store.getState().dataModels, store);
    expect(useLibraryStatus.getState().state).toBe('offline');
    expect(store.getState().notice?.text).toMatch(/not saved: 'Notes': name: a data model named/);
  });

  it('an undo after the library arrived never drops a stored model', async () => {
    mockFetch({
      'GET /api/data-models/': [200, [row(1, QUERY), row(2, ANSWER), row(3, NOTES)]],
    });
    const store = freshStore();
    // An undo step made before the account's library arrived holds the starter library.
    store.setState({ meta: { ...store.getState().meta, name: 'renamed' } });
    expect(store.temporal.getState().pastStates).toHaveLength(1);
    await loadAccountLibrary(store);
    store.temporal.getState().undo();
    expect(store.getState().dataModels.map((m) => m.name)).toEqual(['Query', 'Answer', 'Notes']);
  });

  it('keeps the library in the page, and sends nothing, when the account cannot be read', async () => {
    const calls = mockFetch({ 'GET /api/data-models/': [500, { detail: 'server error' }] });
    const store = freshStore();
    await loadAccountLibrary(store);
    store.getState().run(saveDataModel, { model: NOTES });
    await settle();
    expect(calls.map((c) => c.method)).toEqual(['GET']);
    expect(store.getState().dataModels.map((m) => m.name)).toContain('Notes');
    expect(useLibraryStatus.getState()).toEqual({
      state: 'offline',
      error: 'it could not be loaded (server error)',
    });
  });
});
