import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import qa from '../__fixtures__/program_qa.json';
import { updateProgram } from '../actions/updateModule';
import { STARTER_MODELS, starterGraph } from '../model/defaults';
import { draftKey, parseDraft, type Draft } from '../model/draft';
import { documentToGraph } from '../model/graph';
import {
  clearDrafts,
  DRAFT_DELAY_MS,
  isDirty,
  markSaved,
  offerDraft,
  persistDraft,
  readDraft,
  resetDrafts,
  scheduleDraft,
  useDrafts,
  writeDraft,
} from './drafts';
import { useEditorStore } from './editorStore';
import { useServerProgram } from './serverProgram';

const draft = (over: Partial<Draft> = {}): Draft => ({
  programId: 7,
  baseVersion: 3,
  savedAt: 2_000,
  graph: documentToGraph(qa),
  ...over,
});

/** Open program 7, version 3, as the server would give it. */
function openQa() {
  useEditorStore.setState({ ...documentToGraph(qa), dataModels: structuredClone(STARTER_MODELS) });
  useServerProgram.setState({ programId: 7, version: 3, problems: [] });
  markSaved(useEditorStore.getState(), 7, 3);
}

const edit = (description: string) => useEditorStore.getState().run(updateProgram, { description });

beforeEach(() => {
  localStorage.clear();
  resetDrafts();
  useEditorStore.setState({ ...starterGraph(), dataModels: structuredClone(STARTER_MODELS) });
  useServerProgram.setState({ programId: null, version: null, problems: [] });
});
afterEach(() => vi.useRealTimers());

describe('draft storage', () => {
  it('keeps one draft per program, under its id and base version', () => {
    writeDraft(draft({ baseVersion: 2, savedAt: 1 }));
    writeDraft(draft({ baseVersion: 3, savedAt: 2 }));
    writeDraft(draft({ programId: 8, baseVersion: 1, savedAt: 3 }));
    expect(localStorage.getItem(draftKey(7, 2))).toBeNull();
    expect(parseDraft(localStorage.getItem(draftKey(7, 3)))?.savedAt).toBe(2);
    expect(readDraft(7)?.baseVersion).toBe(3);
    expect(readDraft(8)?.programId).toBe(8);
    clearDrafts(7);
    expect(readDraft(7)).toBeNull();
    expect(readDraft(8)).not.toBeNull();
  });

  it('ignores what it cannot read', () => {
    localStorage.setItem(draftKey(7, 3), '{"half":');
    expect(readDraft(7)).toBeNull();
  });
});

describe('persistDraft', () => {
  it('writes the canvas while it differs from the saved version, and drops it when undone', () => {
    openQa();
    expect(isDirty()).toBe(false);
    persistDraft(10);
    expect(readDraft(7)).toBeNull();
    edit('typed, not saved');
    expect(isDirty()).toBe(true);
    persistDraft(20);
    const kept = readDraft(7);
    expect(kept).toMatchObject({ programId: 7, baseVersion: 3, savedAt: 20 });
    expect(kept?.graph.meta.description).toBe('typed, not saved');
    useEditorStore.temporal.getState().undo();
    persistDraft(30);
    expect(readDraft(7)).toBeNull();
  });

  it('keeps selection and measuring out of drafts', () => {
    openQa();
    const nodes = useEditorStore.getState().nodes;
    useEditorStore.setState({ nodes: nodes.map((n) => ({ ...n, selected: true })) });
    persistDraft(10);
    expect(readDraft(7)).toBeNull();
    edit('x');
    persistDraft(20);
    expect(readDraft(7)?.graph.nodes.some((n) => 'selected' in n)).toBe(false);
  });

  it('compares a program never saved with the starter', () => {
    expect(isDirty()).toBe(false);
    edit('a new one');
    persistDraft(5);
    expect(readDraft(null)).toMatchObject({ programId: null, baseVersion: null, savedAt: 5 });
  });

  it('writes nothing while a draft is on offer', () => {
    writeDraft(draft({ savedAt: 9_000 }));
    openQa();
    expect(offerDraft(7, 1_000)).toBe(true);
    edit('typed while the offer is open');
    persistDraft(10_000);
    expect(readDraft(7)?.savedAt).toBe(9_000);
    useDrafts.setState({ offer: null });
    persistDraft(11_000);
    expect(readDraft(7)?.savedAt).toBe(11_000);
  });

  it('offers only a draft newer than the opened version', () => {
    writeDraft(draft({ savedAt: 500 }));
    expect(offerDraft(7, 1_000)).toBe(false);
    expect(useDrafts.getState().offer).toBeNull();
  });

  it('waits for the canvas to rest before writing', () => {
    vi.useFakeTimers();
    openQa();
    edit('one');
    scheduleDraft();
    edit('two');
    scheduleDraft();
    vi.advanceTimersByTime(DRAFT_DELAY_MS - 1);
    expect(readDraft(7)).toBeNull();
    vi.advanceTimersByTime(1);
    expect(readDraft(7)?.graph.meta.description).toBe('two');
  });
});
