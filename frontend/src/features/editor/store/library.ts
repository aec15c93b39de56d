import { loadLibrary as load, saveLibrary as save } from '@/lib/datamodel/library';
import type { SavedDataModel } from '../model/document';

/** The editor's data model library (stored by `@/lib/datamodel/library`). */
export function loadLibrary(): SavedDataModel[] | null {
  return load() as SavedDataModel[] | null;
}

export function saveLibrary(models: SavedDataModel[]): void {
  save(models as unknown as Parameters<typeof save>[0]);
}
