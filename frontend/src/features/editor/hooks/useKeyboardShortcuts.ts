import { useEffect } from 'react';
import type { EditorCommands } from './useEditorCommands';

/** Typing in a field must never delete modules or undo the canvas. */
function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

export const SHORTCUTS: { keys: string; label: string }[] = [
  { keys: 'Ctrl+Z', label: 'Undo' },
  { keys: 'Ctrl+Shift+Z', label: 'Redo' },
  { keys: 'Delete', label: 'Delete selection' },
  { keys: 'Ctrl+C', label: 'Copy' },
  { keys: 'Ctrl+V', label: 'Paste' },
  { keys: 'L', label: 'Auto-layout' },
  { keys: 'F', label: 'Fit view' },
];

/** The editor's shortcuts, handled as one path with the toolbar buttons. */
export function handleShortcut(event: KeyboardEvent, commands: EditorCommands): boolean {
  if (isEditable(event.target) || event.altKey) return false;
  const mod = event.ctrlKey || event.metaKey;
  const key = event.key.toLowerCase();
  if (mod && key === 'z') {
    if (event.shiftKey) commands.redo();
    else commands.undo();
  } else if (mod && key === 'y') commands.redo();
  else if (mod && key === 'c') commands.copy();
  else if (mod && key === 'v') commands.paste();
  else if (!mod && (event.key === 'Delete' || event.key === 'Backspace')) commands.delete();
  else if (!mod && !event.shiftKey && key === 'l') void commands.layout();
  else if (!mod && !event.shiftKey && key === 'f') commands.fitView();
  else return false;
  event.preventDefault();
  return true;
}

export function useKeyboardShortcuts(commands: EditorCommands): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      // Let dialogs (the data model designer) keep their own keys.
      if (document.querySelector('[role="dialog"][aria-modal="true"]')) return;
      handleShortcut(event, commands);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [commands]);
}
