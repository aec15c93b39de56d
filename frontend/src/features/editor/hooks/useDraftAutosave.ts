import { useEffect } from 'react';
import { useEditorStore } from '../store/editorStore';
import { beginDrafts, flushDraft, isDirty, scheduleDraft, useDrafts } from '../store/drafts';

/**
 * While the editor is open: every change of the program or its layout is written to a
 * local draft (debounced), and leaving the page with unsaved changes asks first.
 *
 * The app's router is a <BrowserRouter>, not a data router, so React Router's navigation
 * blocker is not available; moving between pages inside the app keeps the canvas in memory
 * (the editor store outlives the page), so only leaving the app needs the warning.
 */
export function useDraftAutosave(): void {
  useEffect(() => {
    beginDrafts();
    const unsubscribe = useEditorStore.subscribe((state, previous) => {
      if (
        state.nodes !== previous.nodes ||
        state.edges !== previous.edges ||
        state.meta !== previous.meta
      )
        scheduleDraft();
    });
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      flushDraft();
      if (!isDirty()) return;
      event.preventDefault();
      // Older browsers ask only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      unsubscribe();
      window.removeEventListener('beforeunload', onBeforeUnload);
      flushDraft();
      useDrafts.setState({ offer: null });
    };
  }, []);
}
