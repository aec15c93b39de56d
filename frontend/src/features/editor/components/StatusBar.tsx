import { useEffect } from 'react';
import { useProgramProblems } from '../hooks/useProgramProblems';
import { useEditorStore } from '../store/editorStore';
import styles from './editor.module.css';

const INFO_MS = 4000;

/** The last notice (why an action was refused) and the program's check status. */
export function StatusBar() {
  const notice = useEditorStore((s) => s.notice);
  const problems = useProgramProblems().map((p) => p.message);
  useEffect(() => {
    if (notice?.tone !== 'info') return;
    const timer = setTimeout(() => useEditorStore.setState({ notice: null }), INFO_MS);
    return () => clearTimeout(timer);
  }, [notice]);
  return (
    <footer className={styles.statusBar}>
      <div
        role="status"
        aria-live="polite"
        className={notice?.tone === 'error' ? styles.noticeError : styles.notice}
      >
        {notice?.text}
        {notice && (
          <button
            type="button"
            className={styles.dismiss}
            aria-label="Dismiss"
            onClick={() => useEditorStore.setState({ notice: null })}
          >
            ×
          </button>
        )}
      </div>
      <div
        className={problems.length ? styles.checkBad : styles.checkOk}
        title={problems.join('\n')}
      >
        {problems.length === 0
          ? '● Valid program'
          : `● ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${problems[0]}`}
      </div>
    </footer>
  );
}
