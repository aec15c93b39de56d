import type { DragEvent } from 'react';
import type { ModuleKind } from '../model/document';
import styles from './editor.module.css';

export const PALETTE_MIME = 'application/x-studio-module';

type Item = { kind: ModuleKind; title: string; text: string };

const GROUPS: { title: string; items: Item[] }[] = [
  {
    title: 'Basics',
    items: [
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
    ],
  },
  {
    title: 'Decide',
    items: [
      { kind: 'Decision', title: 'Decision', text: 'Answers a question with one of its labels.' },
      {
        kind: 'Branch',
        title: 'Branch',
        text: 'A Decision, then one output per label: only the chosen one carries data.',
      },
    ],
  },
  {
    title: 'Merge',
    items: [
      { kind: 'Concat', title: 'Concat', text: 'All inputs’ fields in one; every input needed.' },
      { kind: 'And', title: 'And', text: 'All inputs’ fields, or nothing when one is missing.' },
      { kind: 'Or', title: 'Or', text: 'The first input that is there (joins Branch outputs).' },
      { kind: 'Xor', title: 'Xor', text: 'The only input that is there, else nothing.' },
    ],
  },
  {
    title: 'Fields',
    items: [
      { kind: 'InMask', title: 'In mask', text: 'Keeps only the fields it names.' },
      { kind: 'OutMask', title: 'Out mask', text: 'Drops the fields it names.' },
    ],
  },
  {
    title: 'Review',
    items: [
      {
        kind: 'SelfCritique',
        title: 'Self-critique',
        text: 'Critiques (and grades) its input; can revise it.',
      },
    ],
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
      {GROUPS.map((group) => (
        <section key={group.title} aria-label={group.title}>
          <h3 className={styles.paletteGroup}>{group.title}</h3>
          <ul className={styles.paletteList}>
            {group.items.map((item) => (
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
        </section>
      ))}
    </aside>
  );
}
