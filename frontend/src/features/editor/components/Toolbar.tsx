import { useRef } from 'react';
import { useStore } from 'zustand';
import { useEditorStore } from '../store/editorStore';
import type { EditorCommands } from '../hooks/useEditorCommands';
import styles from './editor.module.css';

/** Commands along the top of the editor; each names its shortcut. */
export function Toolbar({
  commands,
  onOpenModels,
  onSave,
  message = '',
  onMessageChange,
  onHistory,
  onTry,
  trying = false,
  saving = false,
  version = null,
}: {
  commands: EditorCommands;
  onOpenModels: () => void;
  /** Save on the server as a new version (absent: the page has no server). */
  onSave?: () => void;
  /** The optional message of the next saved version (shown in the history). */
  message?: string;
  onMessageChange?: (message: string) => void;
  onHistory?: () => void;
  /** Open or close the "Try it" panel (absent: the page has no server). */
  onTry?: () => void;
  trying?: boolean;
  saving?: boolean;
  version?: number | null;
}) {
  const canUndo = useStore(useEditorStore.temporal, (s) => s.pastStates.length > 0);
  const canRedo = useStore(useEditorStore.temporal, (s) => s.futureStates.length > 0);
  const hasSelection = useEditorStore(
    (s) => s.nodes.some((n) => n.selected) || s.edges.some((e) => e.selected),
  );
  const hasNodes = useEditorStore((s) => s.nodes.length > 0);
  const name = useEditorStore((s) => s.meta.name);
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <div className={styles.toolbar} role="toolbar" aria-label="Editor">
      <span className={styles.programName} title="Program name">
        {name}
      </span>
      {version !== null && <span className="badge">v{version}</span>}
      <span className={styles.divider} />
      {onSave && onMessageChange && (
        <input
          className={`input ${styles.versionMessage}`}
          aria-label="Version message"
          placeholder="What changed? (optional)"
          maxLength={500}
          value={message}
          onChange={(e) => onMessageChange(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !saving && hasNodes) {
              e.preventDefault();
              onSave();
            }
          }}
        />
      )}
      {onSave && (
        <button
          type="button"
          className="btn btn-primary"
          onClick={onSave}
          disabled={saving || !hasNodes}
          title="Save a new version (Ctrl+S)"
        >
          {saving ? 'Saving…' : 'Save'}
        </button>
      )}
      {onHistory && (
        <button type="button" className="btn" onClick={onHistory} disabled={version === null}>
          History
        </button>
      )}
      {onTry && (
        <button
          type="button"
          className="btn"
          onClick={onTry}
          disabled={!hasNodes}
          aria-pressed={trying}
          title="Run the program once on one input"
        >
          Try it
        </button>
      )}
      <button
        type="button"
        className="btn"
        onClick={commands.newProgram}
        title="New program (undo brings the old one back)"
      >
        New
      </button>
      <button type="button" className="btn" onClick={() => fileInput.current?.click()}>
        Open…
      </button>
      <input
        ref={fileInput}
        type="file"
        accept="application/json,.json"
        className="visually-hidden"
        tabIndex={-1}
        aria-label="Program file"
        onChange={async (e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) await commands.importText(await file.text(), file.name);
        }}
      />
      <button type="button" className="btn" onClick={commands.exportFile} disabled={!hasNodes}>
        Export
      </button>
      <span className={styles.divider} />
      <button
        type="button"
        className="btn"
        onClick={commands.undo}
        disabled={!canUndo}
        title="Undo (Ctrl+Z)"
      >
        Undo
      </button>
      <button
        type="button"
        className="btn"
        onClick={commands.redo}
        disabled={!canRedo}
        title="Redo (Ctrl+Shift+Z)"
      >
        Redo
      </button>
      <button
        type="button"
        className="btn"
        onClick={commands.delete}
        disabled={!hasSelection}
        title="Delete (Delete)"
      >
        Delete
      </button>
      <span className={styles.divider} />
      <button
        type="button"
        className="btn"
        onClick={() => void commands.layout()}
        disabled={!hasNodes}
        title="Auto-layout (L)"
      >
        Auto-layout
      </button>
      <button
        type="button"
        className="btn"
        onClick={commands.fitView}
        disabled={!hasNodes}
        title="Fit view (F)"
      >
        Fit view
      </button>
      <span className={styles.spacer} />
      <button type="button" className="btn btn-primary" onClick={onOpenModels}>
        Data models
      </button>
    </div>
  );
}
