/**
 * Unsaved edits survive a reload: the canvas is written to localStorage (debounced) while
 * it differs from what the server has, and the draft is dropped on save or discard.
 *
 * The baseline is the canvas as last opened or saved; "dirty" means the canvas differs
 * from it. While a draft is being offered (restore / discard), nothing is written, so the
 * draft on offer is not overwritten by the version that was just opened.
 */
import { create } from 'zustand';
import { starterGraph } from '../model/defaults';
import {
  canonicalGraph,
  draftKey,
  draftPrefix,
  draftToOffer,
  parseDraft,
  type Draft,
} from '../model/draft';
import type { EditorGraph } from '../model/graph';
import { historyOf, useEditorStore } from './editorStore';
import { useServerProgram } from './serverProgram';

/** How long the canvas must rest before it is written (ms). */
export const DRAFT_DELAY_MS = 400;

type Baseline = {
  programId: number | null;
  version: number | null;
  /** canonicalGraph of the canvas as opened / saved. */
  snapshot: string;
  /** The program description the server has (the Program row's, not only the document's). */
  description: string | null;
};

type DraftsState = {
  baseline: Baseline | null;
  /** A draft waiting for the person's answer (Restore draft / Discard). */
  offer: Draft | null;
};

export const useDrafts = create<DraftsState>()(() => ({ baseline: null, offer: null }));

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

function keysUnder(store: Storage, prefix: string): string[] {
  const keys: string[] = [];
  for (let i = 0; i < store.length; i += 1) {
    const key = store.key(i);
    if (key?.startsWith(prefix)) keys.push(key);
  }
  return keys;
}

/** Keep this draft, and only this one, for its program. */
export function writeDraft(draft: Draft, store = storage()): void {
  if (!store) return;
  const key = draftKey(draft.programId, draft.baseVersion);
  try {
    for (const other of keysUnder(store, draftPrefix(draft.programId)))
      if (other !== key) store.removeItem(other);
    store.setItem(key, JSON.stringify(draft));
  } catch {
    // A full or disabled storage loses the safety net, not the canvas.
  }
}

/** The newest readable draft of a program (null: none). */
export function readDraft(programId: number | null, store = storage()): Draft | null {
  if (!store) return null;
  const drafts = keysUnder(store, draftPrefix(programId))
    .map((key) => parseDraft(store.getItem(key)))
    .filter((d): d is Draft => d !== null && d.programId === programId);
  return drafts.sort((a, b) => b.savedAt - a.savedAt)[0] ?? null;
}

export function clearDrafts(programId: number | null, store = storage()): void {
  if (!store) return;
  for (const key of keysUnder(store, draftPrefix(programId))) store.removeItem(key);
}

/** The canvas as a draft holds it: no selection, no measured sizes. */
export function draftGraph(state: EditorGraph): EditorGraph {
  const { nodes, edges, meta } = historyOf({ ...state, dataModels: [] });
  return { nodes, edges, meta };
}

let starterSnapshot: string | null = null;

/** Whether the canvas differs from what the server has (for a new program: the starter). */
export function isDirty(
  graph: EditorGraph = useEditorStore.getState(),
  programId: number | null = useServerProgram.getState().programId,
): boolean {
  const { baseline } = useDrafts.getState();
  let reference: string | null = null;
  if (baseline && baseline.programId === programId) reference = baseline.snapshot;
  else if (programId === null) reference = starterSnapshot ??= canonicalGraph(starterGraph());
  return canonicalGraph(graph) !== reference;
}

// What the last write saw, so a canvas that only got measured or selected writes nothing.
let lastWritten: string | null = null;

/** Start watching a canvas: what is on it now counts as written (it came from a load). */
export function beginDrafts(graph: EditorGraph = useEditorStore.getState()): void {
  lastWritten ??= canonicalGraph(graph);
}

/** Record the canvas as the server has it (after open or save). */
export function markSaved(
  graph: EditorGraph,
  programId: number | null,
  version: number | null,
  description: string | null = graph.meta.description,
): void {
  const snapshot = canonicalGraph(graph);
  lastWritten = snapshot;
  useDrafts.setState({ baseline: { programId, version, snapshot, description } });
}

/**
 * Write the canvas as the draft of the program on it when it differs from the saved
 * version, or drop the draft when it does not (edits undone). Nothing while a draft is
 * on offer, nor when the canvas did not change since the last write or load.
 */
export function persistDraft(now = Date.now(), store = storage()): void {
  if (useDrafts.getState().offer) return;
  const state = useEditorStore.getState();
  const snapshot = canonicalGraph(state);
  if (snapshot === lastWritten) return;
  lastWritten = snapshot;
  const { programId, version } = useServerProgram.getState();
  if (!isDirty(state, programId)) clearDrafts(programId, store);
  else
    writeDraft({ programId, baseVersion: version, savedAt: now, graph: draftGraph(state) }, store);
}

/**
 * Offer the program's kept draft when it is newer than the version just opened
 * (`openedAt`, ms; null for a program never saved). Returns whether one is on offer.
 */
export function offerDraft(
  programId: number | null,
  openedAt: number | null,
  store = storage(),
): boolean {
  const offer = draftToOffer(readDraft(programId, store), openedAt);
  useDrafts.setState({ offer });
  return offer !== null;
}

let timer: ReturnType<typeof setTimeout> | null = null;

/** Write the draft once the canvas has rested for DRAFT_DELAY_MS. */
export function scheduleDraft(): void {
  if (timer !== null) clearTimeout(timer);
  timer = setTimeout(flushDraft, DRAFT_DELAY_MS);
}

/** Write a pending draft now (before the page goes, or another program replaces this one). */
export function flushDraft(): void {
  if (timer === null) return;
  clearTimeout(timer);
  timer = null;
  persistDraft();
}

/** Forget what was written (tests start from a clean page). */
export function resetDrafts(): void {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  lastWritten = null;
  useDrafts.setState({ baseline: null, offer: null });
}
