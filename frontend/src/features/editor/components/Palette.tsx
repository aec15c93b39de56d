import type { DragEvent } from 'react';
import type { ModuleKind } from '../model/document';
import styles from './editor.module.css';

export const PALETTE_MIME = 'application/x-studio-module';

const ITEMS: { kind: ModuleKind; title: string; text: string }[] = [
  { kind: 'Input', title: 'Input', text: 'Where data enters: one DataModel.' },
  {
    kind: 'Generator',
    title: 'Generator',
    text: 'One structured LM call, trainable instructions and examples.',
  },
  {
    kind: 'ChainOfThought',
    title: 'Chain of thought',
    text: 'A Generator that writes its thinking first.',
  },
];

/** Modules to add: click (or Enter) adds one in view; dragging drops it where wanted. */
export function Palette({ onAdd }: { onAdd: (kind: ModuleKind) => void }) {
  const onDragStart = (event: DragEvent, kind: ModuleKind) => {
    event.dataTransfer.setData(PALETTE_MIME, kind);
    event.dataTransfer.effectAllowed = 'copy';
  };
  return (
    <aside className={styles.palette} aria-label="Modules">
      <h2 className={styles.panelTitle}>Modules</h2>
      <ul className={styles.paletteList}>
        {ITEMS.map((item) => (
          <li key={item.kind}>
            <button
              type="button"
              className={`${styles.paletteItem} ${styles[`kind${item.kind}`] ?? ''}`}
              draggable
              onDragStart={(event) => onDragStart(event, item.kind)}
              onClick={() => onAdd(item.kind)}
              aria-label={`Add ${item.title}`}
            >
              <span className={styles.paletteTitle}>{item.title}</span>
              <span className={styles.paletteText}>{item.text}</span>
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
