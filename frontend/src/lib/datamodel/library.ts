/**
 * The data model library lives in the browser until the API stores it: models drawn once
 * in the editor are offered in every program opened here, and to the dataset upload.
 */
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

export function saveLibrary(models: LibraryModel[]): void {
  try {
    globalThis.localStorage?.setItem(KEY, JSON.stringify(models));
  } catch {
    // A full or disabled storage only loses the convenience, not the program.
  }
}
