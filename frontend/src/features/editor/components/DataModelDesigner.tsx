import { useEffect, useMemo, useRef, useState } from 'react';
import { deleteDataModel, saveDataModel } from '../actions/dataModels';
import {
  checkDraft,
  editDraft,
  editSchemaText,
  libraryDefs,
  openModel,
  planSave,
} from '../model/dataModelDraft';
import { useEditorStore } from '../store/editorStore';
import { FieldTable } from './designer/FieldTable';
import { LibraryNav } from './designer/LibraryNav';
import { SchemaText } from './designer/SchemaText';
import styles from './designer.module.css';

type Props = { initialName: string | null; onClose: () => void };

/**
 * The data model designer: fields in a table, and the same model as the JSON schema
 * pydantic would emit, editable either way. Saved models join the library and every
 * module using them is updated.
 */
export function DataModelDesigner({ initialName, onClose }: Props) {
  const library = useEditorStore((s) => s.dataModels);
  const attempt = useEditorStore((s) => s.attempt);
  const [state, setState] = useState(() => openModel(library, initialName));
  const [saveError, setSaveError] = useState<string | null>(null);
  const dialog = useRef<HTMLDivElement>(null);

  const defs = useMemo(() => libraryDefs(library), [library]);
  const check = checkDraft(state, defs);
  const { current, draft, unsupported } = state;
  const schemaText = state.rawSchema ?? check.generated;

  useEffect(() => {
    dialog.current?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
  }, []);

  const open = (name: string | null) => {
    setState(openModel(library, name));
    setSaveError(null);
  };

  const save = () => {
    const plan = planSave(state, library, check);
    if ('error' in plan) return setSaveError(plan.error);
    for (const model of plan.nested) {
      const reason = attempt(saveDataModel, { model });
      if (reason) return setSaveError(reason);
    }
    setState((s) => ({ ...s, extraDefs: [] }));
    const reason = attempt(saveDataModel, {
      model: plan.model,
      previousName: plan.previousName,
    });
    if (reason) return setSaveError(reason);
    setSaveError(null);
    setState((s) => ({ ...s, rawSchema: null, current: plan.model.name }));
  };

  const remove = () => {
    if (!current) return;
    const reason = attempt(deleteDataModel, { name: current });
    if (reason) return setSaveError(reason);
    open(library.find((m) => m.name !== current)?.name ?? null);
  };

  return (
    <div className={styles.backdrop} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={dialog}
        className={styles.dialog}
        role="dialog"
        aria-modal="true"
        aria-labelledby="designer-title"
        onKeyDown={(e) => e.key === 'Escape' && onClose()}
      >
        <header className={styles.header}>
          <h2 id="designer-title">Data models</h2>
          <button
            type="button"
            className="btn btn-ghost"
            onClick={onClose}
            aria-label="Close data models"
          >
            ✕
          </button>
        </header>
        <div className={styles.body}>
          <LibraryNav library={library} current={current} onOpen={open} />
          <section className={styles.editor}>
            <div className={styles.topRow}>
              <label className={styles.inline}>
                <span>Name</span>
                <input
                  data-autofocus
                  className="input"
                  value={draft.name}
                  disabled={Boolean(unsupported)}
                  onChange={(e) => setState(editDraft(state, { ...draft, name: e.target.value }))}
                  aria-label="Model name"
                />
              </label>
              <label className={styles.inline}>
                <span>Description</span>
                <input
                  className="input"
                  value={draft.description ?? ''}
                  disabled={Boolean(unsupported)}
                  placeholder="The class docstring"
                  onChange={(e) =>
                    setState(
                      editDraft(state, { ...draft, description: e.target.value || undefined }),
                    )
                  }
                  aria-label="Model description"
                />
              </label>
            </div>
            {unsupported ? (
              <p className={styles.warning}>
                This model uses schema features the field table cannot show ({unsupported}); edit
                its JSON schema directly.
              </p>
            ) : (
              <FieldTable
                draft={draft}
                models={[...defs.keys(), ...state.extraDefs.map((d) => d.name)].filter(
                  (n) => n !== draft.name,
                )}
                session={current ?? 'new'}
                onChange={(next) => setState(editDraft(state, next))}
              />
            )}
            {check.errors.length > 0 && (
              <ul className={styles.errors} role="alert">
                {check.errors.map((e) => (
                  <li key={e}>{e}</li>
                ))}
              </ul>
            )}
            <SchemaText
              text={schemaText}
              error={state.schemaError}
              onChange={(text) => setState(editSchemaText(state, text, defs))}
            />
          </section>
        </div>
        <footer className={styles.footer}>
          {saveError && (
            <p className={styles.schemaError} role="alert">
              {saveError}
            </p>
          )}
          <span className={styles.spacer} />
          {current && (
            <button type="button" className="btn btn-danger" onClick={remove}>
              Delete model
            </button>
          )}
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
          <button type="button" className="btn btn-primary" onClick={save}>
            {current ? 'Save model' : 'Add to library'}
          </button>
        </footer>
      </div>
    </div>
  );
}
