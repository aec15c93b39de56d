import type { SavedDataModel } from '../../model/document';
import styles from '../designer.module.css';

/** The library's models, the one open marked; and a new one. */
export function LibraryNav({
  library,
  current,
  onOpen,
}: {
  library: SavedDataModel[];
  current: string | null;
  /** Open a model by name; null starts a new one. */
  onOpen: (name: string | null) => void;
}) {
  return (
    <nav className={styles.list} aria-label="Library">
      <ul>
        {library.map((model) => (
          <li key={model.name}>
            <button
              type="button"
              className={model.name === current ? styles.active : undefined}
              aria-current={model.name === current ? 'true' : undefined}
              onClick={() => onOpen(model.name)}
            >
              {model.name}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="btn btn-small" onClick={() => onOpen(null)}>
        + New model
      </button>
    </nav>
  );
}
