import type { Draft } from '../model/draft';
import styles from './editor.module.css';

/** When a draft was kept, in words ("today at 14:05", or the date). */
function when(savedAt: number, now = Date.now()): string {
  const saved = new Date(savedAt);
  const time = saved.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return new Date(now).toDateString() === saved.toDateString()
    ? `today at ${time}`
    : `${saved.toLocaleDateString()} at ${time}`;
}

/**
 * The offer of a draft kept in this browser: unsaved changes from an earlier visit.
 * Restore puts them on the canvas (undo goes back to the saved version); Discard drops them.
 */
export function DraftPrompt({
  draft,
  version,
  onRestore,
  onDiscard,
}: {
  draft: Draft;
  /** The version on the canvas (null for a program never saved). */
  version: number | null;
  onRestore: () => void;
  onDiscard: () => void;
}) {
  const older =
    draft.baseVersion !== null && version !== null && draft.baseVersion !== version
      ? ` They were made on version ${draft.baseVersion}; the canvas shows version ${version}.`
      : '';
  return (
    <div className={styles.draftPrompt} role="region" aria-label="Unsaved draft">
      <p aria-live="polite">
        Unsaved changes to this program from {when(draft.savedAt)} were kept in this browser.
        {older}
      </p>
      <button type="button" className="btn btn-primary btn-small" onClick={onRestore}>
        Restore draft
      </button>
      <button type="button" className="btn btn-small" onClick={onDiscard}>
        Discard
      </button>
    </div>
  );
}
