import type { SavedDataModel } from '../../model/document';
import { useLibraryStatus } from '../../store/librarySync';
import styles from '../designer.module.css';

const STATUS_TEXT = {
  loading: 'Loading your library…',
  saving: 'Saving to your account…',
  saved: 'Kept in your account',
  offline: 'Not kept in your account',
};

/** Where the library is kept: in the account, or (on a failure) in this page only. */
function LibraryStatusNote() {
  const { state, error } = useLibraryStatus();
  return (
    <p
      className={`${styles.libraryStatus} ${state === 'offline' ? 'field-error' : 'field-hint'}`}
      role="status"
    >
      {error ? `${STATUS_TEXT[state]}: ${error}` : STATUS_TEXT[state]}
    </p>
  );
}

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
      <LibraryStatusNote />
    </nav>
  );
}
