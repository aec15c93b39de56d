import { useEffect } from 'react';
import { useEditorStore } from '../store/editorStore';
import { loadAccountLibrary, pushLibrary } from '../store/librarySync';

/** While the editor is open, its data model library is the account's (/api/data-models/). */
export function useLibrarySync() {
  useEffect(() => {
    void loadAccountLibrary();
    return useEditorStore.subscribe((state, previous) => {
      if (state.dataModels !== previous.dataModels) void pushLibrary(state.dataModels);
    });
  }, []);
}
