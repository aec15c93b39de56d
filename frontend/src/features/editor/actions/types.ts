import type { SavedDataModel } from '../model/document';
import type { EditorGraph } from '../model/graph';

/** The part of the editor that undo/redo restores: the program and the model library. */
export type EditorDocumentState = EditorGraph & {
  /** Reusable DataModels, by name; nodes hold their own copy, as saved programs do. */
  dataModels: SavedDataModel[];
};

export type ActionResult =
  { ok: true; state: Partial<EditorDocumentState> } | { ok: false; reason: string };

/**
 * An editor command: a pure function from the current state (and arguments) to a change.
 * The store applies the change, which makes it one undo step.
 */
export type Action<Args> = {
  name: string;
  label: string;
  /** Shown in tooltips and the shortcut help. */
  shortcut?: string;
  perform: (state: EditorDocumentState, args: Args) => ActionResult;
};

export function defineAction<Args = void>(action: Action<Args>): Action<Args> {
  return action;
}

export function refuse(reason: string): ActionResult {
  return { ok: false, reason };
}

export function change(state: Partial<EditorDocumentState>): ActionResult {
  return { ok: true, state };
}
