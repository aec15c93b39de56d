import type { SavedDataModel } from '../model/document';

/**
 * The data model library lives in the browser until the API stores it (issue #5):
 * models drawn once are offered in every program opened here.
 */
const KEY = 'studio.editor.dataModels.v1';

export function loadLibrary(): SavedDataModel[] | null {
  try {
    const raw = globalThis.localStorage?.getItem(KEY);
    if (!raw) return null;
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? (parsed as SavedDataModel[]) : null;
  } catch {
    return null;
  }
}

export function saveLibrary(models: SavedDataModel[]): void {
  try {
    globalThis.localStorage?.setItem(KEY, JSON.stringify(models));
  } catch {
    // A full or disabled storage only loses the convenience, not the program.
  }
}
