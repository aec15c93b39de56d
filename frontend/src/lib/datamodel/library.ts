/**
 * The data model library lives in the account (/api/data-models/): models drawn once in
 * the editor are offered in every program, and to the dataset upload. Before the API
 * stored it, the browser kept it under this key; the editor moves such a copy into the
 * account once (`loadLibrary`, then `clearLibrary`).
 */
import type { StoredDataModel } from '@/lib/api/ops/dataModelsList';

export type LibraryModel = { name: string; class: string; schema: Record<string, unknown> };

const KEY = 'studio.editor.dataModels.v1';

export function loadLibrary<T extends LibraryModel = LibraryModel>(): T[] | null {
  try {
    const raw = globalThis.localStorage?.getItem(KEY);
    if (!raw) return null;
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? (parsed as T[]) : null;
  } catch {
    return null;
  }
}

/** Forget the browser's copy once the account holds it. */
export function clearLibrary(): void {
  try {
    globalThis.localStorage?.removeItem(KEY);
  } catch {
    // Nothing to forget where storage is disabled.
  }
}

/**
 * The library to offer: the account's models, then any this browser still keeps under
 * other names (before the editor has moved them into the account). Without the account's
 * (not arrived, or unreachable), the browser's copy alone.
 */
export function libraryModels(stored: StoredDataModel[] | undefined): LibraryModel[] {
  const models: LibraryModel[] = (stored ?? []).map((row) => ({
    name: row.name,
    class: row.class_path ?? '',
    schema: row.schema as Record<string, unknown>,
  }));
  for (const kept of loadLibrary() ?? []) {
    if (!models.some((m) => m.name === kept.name)) models.push(kept);
  }
  return models;
}
