import type { VersionCreate } from '../api/datasetsVersions';

export type Split = 'train' | 'test' | 'auto';
export type NewRow = {
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  split: Split;
};
export type RowEdit = { input?: Record<string, unknown>; output?: Record<string, unknown> };

/** The changes a user is making to one version, before they save them as the next one. */
export type Draft = {
  add: NewRow[];
  remove: number[];
  edit: Record<number, RowEdit>;
};

export const emptyDraft: Draft = { add: [], remove: [], edit: {} };

export function addRow(draft: Draft, row: NewRow): Draft {
  return { ...draft, add: [...draft.add, row] };
}

export function dropNewRow(draft: Draft, index: number): Draft {
  return { ...draft, add: draft.add.filter((_, i) => i !== index) };
}

/** Remove a row (its pending edit goes), or take the removal back. */
export function toggleRemove(draft: Draft, rowId: number): Draft {
  if (draft.remove.includes(rowId))
    return { ...draft, remove: draft.remove.filter((id) => id !== rowId) };
  const edit = { ...draft.edit };
  delete edit[rowId];
  return { ...draft, remove: [...draft.remove, rowId], edit };
}

/** Replace a row's input and / or output (a removal of it is taken back). */
export function editRow(draft: Draft, rowId: number, change: RowEdit): Draft {
  return {
    ...draft,
    remove: draft.remove.filter((id) => id !== rowId),
    edit: { ...draft.edit, [rowId]: { ...draft.edit[rowId], ...change } },
  };
}

export function undoEdit(draft: Draft, rowId: number): Draft {
  const edit = { ...draft.edit };
  delete edit[rowId];
  return { ...draft, edit };
}

export function draftSize(draft: Draft): number {
  return draft.add.length + draft.remove.length + Object.keys(draft.edit).length;
}

/** The request that saves the draft as a new version of `parent`. */
export function toRequest(draft: Draft, parent: number, message: string): VersionCreate {
  return {
    parent,
    message,
    add: draft.add,
    remove: [...draft.remove].sort((a, b) => a - b),
    edit: Object.entries(draft.edit).map(([rowId, change]) => ({
      row_id: Number(rowId),
      ...change,
    })),
  };
}

/** A JSON object typed in a text box, or why it is not one. */
export function parseObject(text: string): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: 'must be a JSON object, {"field": value}' };
  return { value: value as Record<string, unknown> };
}
