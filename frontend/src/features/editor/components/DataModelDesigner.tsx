import { useEffect, useMemo, useRef, useState } from 'react';
import {
  describeType,
  fromJsonSchema,
  toJsonSchema,
  validateDataModel,
  type DataModelDef,
  type FieldDef,
  type FieldType,
} from '@/lib/datamodel/schema';
import type { Json } from '@/lib/json';
import { deleteDataModel, saveDataModel } from '../actions/dataModels';
import { editorClassPath, type SavedDataModel } from '../model/document';
import { useEditorStore } from '../store/editorStore';
import styles from './designer.module.css';

type Props = { initialName: string | null; onClose: () => void };

type Parsed = { def: DataModelDef; nested: DataModelDef[] } | { error: string };

function parseSaved(model: SavedDataModel): Parsed {
  try {
    const { model: def, nested } = fromJsonSchema(model.schema, model.name);
    return { def: { ...def, name: model.name }, nested };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const NEW_MODEL: DataModelDef = {
  name: 'NewModel',
  fields: [{ name: 'text', type: { kind: 'string' }, description: '', required: true }],
};

/**
 * The data model designer: fields in a table, and the same model as the JSON schema
 * pydantic would emit, editable either way. Saved models join the library and every
 * module using them is updated.
 */
export function DataModelDesigner({ initialName, onClose }: Props) {
  const library = useEditorStore((s) => s.dataModels);
  const attempt = useEditorStore((s) => s.attempt);
  // `current` names the library model being edited; null while drafting a new one.
  const [current, setCurrent] = useState<string | null>(
    library.some((m) => m.name === initialName) ? initialName : null,
  );
  const initial = library.find((m) => m.name === current);
  const initialParse = initial ? parseSaved(initial) : null;
  const [draft, setDraft] = useState<DataModelDef>(() =>
    initialParse && 'def' in initialParse
      ? initialParse.def
      : initial
        ? { name: initial.name, fields: [] }
        : { ...NEW_MODEL, name: uniqueModelName(library) },
  );
  const [rawSchema, setRawSchema] = useState<string | null>(() =>
    initial && initialParse && 'error' in initialParse
      ? JSON.stringify(initial.schema, null, 2)
      : null,
  );
  const [schemaError, setSchemaError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [unsupported, setUnsupported] = useState<string | null>(
    initialParse && 'error' in initialParse ? initialParse.error : null,
  );
  // Models a pasted schema brought along in `$defs` that the library does not have yet.
  const [extraDefs, setExtraDefs] = useState<DataModelDef[]>([]);
  const dialog = useRef<HTMLDivElement>(null);

  const defsByName = useMemo(() => {
    const map = new Map<string, DataModelDef>();
    for (const model of library) {
      const parsed = parseSaved(model);
      if ('def' in parsed) map.set(model.name, parsed.def);
    }
    return map;
  }, [library]);
  const lookup = (name: string) =>
    name === draft.name ? draft : (defsByName.get(name) ?? extraDefs.find((d) => d.name === name));
  const errors = unsupported ? [] : validateDataModel(draft, lookup);
  let generated = '';
  if (!unsupported && errors.length === 0) {
    try {
      generated = JSON.stringify(toJsonSchema(draft, lookup), null, 2);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  const schemaText = rawSchema ?? generated;

  useEffect(() => {
    dialog.current?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
  }, []);

  const open = (name: string | null) => {
    setCurrent(name);
    setRawSchema(null);
    setSchemaError(null);
    setSaveError(null);
    setExtraDefs([]);
    const model = library.find((m) => m.name === name);
    if (!model) {
      setDraft({ ...NEW_MODEL, name: uniqueModelName(library) });
      setUnsupported(null);
      return;
    }
    const parsed = parseSaved(model);
    if ('def' in parsed) {
      setDraft(parsed.def);
      setUnsupported(null);
    } else {
      setDraft({ name: model.name, fields: [] });
      setUnsupported(parsed.error);
      setRawSchema(JSON.stringify(model.schema, null, 2));
    }
  };

  const editSchema = (text: string) => {
    setRawSchema(text);
    let value: Json;
    try {
      value = JSON.parse(text) as Json;
    } catch (error) {
      setSchemaError(`Not JSON: ${(error as Error).message}`);
      return;
    }
    try {
      const { model, nested } = fromJsonSchema(value, draft.name);
      setDraft(model);
      setExtraDefs(nested.filter((n) => !defsByName.has(n.name)));
      setSchemaError(null);
      setUnsupported(null);
    } catch (error) {
      setSchemaError((error as Error).message);
    }
  };

  const save = () => {
    let schema: Json;
    const name = draft.name;
    let nested: DataModelDef[] = [];
    if (unsupported && rawSchema !== null) {
      try {
        schema = JSON.parse(rawSchema) as Json;
      } catch (error) {
        return setSaveError(`Not JSON: ${(error as Error).message}`);
      }
    } else {
      if (errors.length > 0 || schemaError) return setSaveError('Fix the problems listed first.');
      schema = toJsonSchema(draft, lookup);
      nested = extraDefs;
    }
    // Models a pasted schema brought in its $defs join the library first.
    for (const def of nested) {
      const reason = attempt(saveDataModel, {
        model: {
          name: def.name,
          class: editorClassPath(def.name),
          schema: toJsonSchema(def, lookup),
        },
      });
      if (reason) return setSaveError(reason);
    }
    setExtraDefs([]);
    const previous = library.find((m) => m.name === current);
    const reason = attempt(saveDataModel, {
      model: {
        name,
        class: previous?.class ?? editorClassPath(name),
        schema: schema as SavedDataModel['schema'],
      },
      previousName: previous ? previous.name : undefined,
    });
    if (reason) return setSaveError(reason);
    setSaveError(null);
    setRawSchema(null);
    setCurrent(name);
  };

  const remove = () => {
    if (!current) return;
    const reason = attempt(deleteDataModel, { name: current });
    if (reason) return setSaveError(reason);
    open(library.find((m) => m.name !== current)?.name ?? null);
  };

  const updateField = (index: number, field: FieldDef) => {
    setRawSchema(null);
    setDraft({ ...draft, fields: draft.fields.map((f, i) => (i === index ? field : f)) });
  };
  const moveField = (index: number, by: number) => {
    const fields = [...draft.fields];
    const [moved] = fields.splice(index, 1);
    fields.splice(index + by, 0, moved as FieldDef);
    setRawSchema(null);
    setDraft({ ...draft, fields });
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
          <nav className={styles.list} aria-label="Library">
            <ul>
              {library.map((model) => (
                <li key={model.name}>
                  <button
                    type="button"
                    className={model.name === current ? styles.active : undefined}
                    aria-current={model.name === current ? 'true' : undefined}
                    onClick={() => open(model.name)}
                  >
                    {model.name}
                  </button>
                </li>
              ))}
            </ul>
            <button type="button" className="btn btn-small" onClick={() => open(null)}>
              + New model
            </button>
          </nav>
          <section className={styles.editor}>
            <div className={styles.topRow}>
              <label className={styles.inline}>
                <span>Name</span>
                <input
                  data-autofocus
                  className="input"
                  value={draft.name}
                  disabled={Boolean(unsupported)}
                  onChange={(e) => {
                    setRawSchema(null);
                    setDraft({ ...draft, name: e.target.value });
                  }}
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
                  onChange={(e) => {
                    setRawSchema(null);
                    setDraft({ ...draft, description: e.target.value || undefined });
                  }}
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
              <table className={styles.fields}>
                <thead>
                  <tr>
                    <th>Field</th>
                    <th>Type</th>
                    <th>Required</th>
                    <th>Default</th>
                    <th>Description</th>
                    <th>
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody key={current ?? 'new'}>
                  {draft.fields.map((field, index) => (
                    <FieldRow
                      key={index}
                      field={field}
                      models={[...defsByName.keys(), ...extraDefs.map((d) => d.name)].filter(
                        (n) => n !== draft.name,
                      )}
                      onChange={(f) => updateField(index, f)}
                      onRemove={() => {
                        setRawSchema(null);
                        setDraft({ ...draft, fields: draft.fields.filter((_, i) => i !== index) });
                      }}
                      onMove={(by) => moveField(index, by)}
                      first={index === 0}
                      last={index === draft.fields.length - 1}
                    />
                  ))}
                </tbody>
              </table>
            )}
            {!unsupported && (
              <button
                type="button"
                className="btn btn-small"
                onClick={() => {
                  setRawSchema(null);
                  const taken = new Set(draft.fields.map((f) => f.name));
                  let name = 'field';
                  for (let i = 1; taken.has(name); i += 1) name = `field_${i}`;
                  setDraft({
                    ...draft,
                    fields: [...draft.fields, { name, type: { kind: 'string' }, required: true }],
                  });
                }}
              >
                + Add field
              </button>
            )}
            {errors.length > 0 && (
              <ul className={styles.errors} role="alert">
                {errors.map((e) => (
                  <li key={e}>{e}</li>
                ))}
              </ul>
            )}
            <label className={styles.schemaLabel} htmlFor="designer-schema">
              JSON schema <span>(as pydantic's model_json_schema() emits it; editable)</span>
            </label>
            <textarea
              id="designer-schema"
              className="textarea mono"
              rows={10}
              spellCheck={false}
              value={schemaText}
              aria-invalid={schemaError ? true : undefined}
              aria-describedby={schemaError ? 'designer-schema-error' : undefined}
              onChange={(e) => editSchema(e.target.value)}
            />
            {schemaError && (
              <p id="designer-schema-error" className={styles.schemaError} role="alert">
                {schemaError}
              </p>
            )}
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

function sameJsonText(text: string, value: Json | undefined): boolean {
  if (!text.trim()) return value === undefined;
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function uniqueModelName(library: SavedDataModel[]): string {
  const taken = new Set(library.map((m) => m.name));
  let name = 'NewModel';
  for (let i = 2; taken.has(name); i += 1) name = `NewModel${i}`;
  return name;
}

const SCALARS = ['string', 'integer', 'number', 'boolean'] as const;

function TypePicker({
  type,
  models,
  onChange,
  label,
}: {
  type: FieldType;
  models: string[];
  onChange: (type: FieldType) => void;
  label: string;
}) {
  const value = type.kind === 'model' ? `model:${type.model}` : type.kind;
  return (
    <div className={styles.typePicker}>
      <select
        className="select"
        aria-label={label}
        value={value}
        onChange={(e) => {
          const next = e.target.value;
          if (next.startsWith('model:')) onChange({ kind: 'model', model: next.slice(6) });
          else if (next === 'enum') onChange({ kind: 'enum', values: ['a', 'b'] });
          else if (next === 'list') onChange({ kind: 'list', items: { kind: 'string' } });
          else onChange({ kind: next as (typeof SCALARS)[number] });
        }}
      >
        {SCALARS.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
        <option value="enum">enum</option>
        <option value="list">list of…</option>
        {models.map((m) => (
          <option key={m} value={`model:${m}`}>
            {m}
          </option>
        ))}
        {type.kind === 'model' && !models.includes(type.model) && (
          <option value={value}>{type.model}</option>
        )}
      </select>
      {type.kind === 'enum' && (
        <input
          className="input"
          aria-label={`${label} values`}
          value={type.values.join(', ')}
          placeholder="a, b, c"
          onChange={(e) =>
            onChange({
              kind: 'enum',
              values: e.target.value.split(',').map((v) => v.trim()),
            })
          }
        />
      )}
      {type.kind === 'list' && (
        <TypePicker
          type={type.items}
          models={models}
          label={`${label} items`}
          onChange={(items) => onChange({ kind: 'list', items })}
        />
      )}
    </div>
  );
}

function FieldRow({
  field,
  models,
  onChange,
  onRemove,
  onMove,
  first,
  last,
}: {
  field: FieldDef;
  models: string[];
  onChange: (field: FieldDef) => void;
  onRemove: () => void;
  onMove: (by: number) => void;
  first: boolean;
  last: boolean;
}) {
  const external = field.default === undefined ? '' : JSON.stringify(field.default);
  const [defaultText, setDefaultText] = useState(external);
  const [seenDefault, setSeenDefault] = useState(external);
  const [defaultError, setDefaultError] = useState<string | null>(null);
  if (external !== seenDefault) {
    // The row now shows another field (one above was removed or moved): follow its default.
    setSeenDefault(external);
    if (!sameJsonText(defaultText, field.default)) {
      setDefaultText(external);
      setDefaultError(null);
    }
  }
  const label = field.name || 'field';
  return (
    <tr>
      <td>
        <input
          className="input mono"
          aria-label="Field name"
          value={field.name}
          onChange={(e) => onChange({ ...field, name: e.target.value })}
        />
      </td>
      <td title={describeType(field.type)}>
        <TypePicker
          type={field.type}
          models={models}
          label={`Type of ${label}`}
          onChange={(type) => onChange({ ...field, type })}
        />
      </td>
      <td className={styles.center}>
        <input
          type="checkbox"
          aria-label={`${label} is required`}
          checked={field.required}
          onChange={(e) => {
            const next: FieldDef = { ...field, required: e.target.checked };
            if (e.target.checked) delete next.default;
            setDefaultText('');
            onChange(next);
          }}
        />
      </td>
      <td>
        <input
          className="input mono"
          aria-label={`Default of ${label}`}
          aria-invalid={defaultError ? true : undefined}
          title={defaultError ?? 'JSON value; empty: None'}
          placeholder={field.required ? '—' : 'None'}
          disabled={field.required}
          value={defaultText}
          onChange={(e) => {
            const text = e.target.value;
            setDefaultText(text);
            if (!text.trim()) {
              setDefaultError(null);
              const next = { ...field };
              delete next.default;
              return onChange(next);
            }
            try {
              onChange({ ...field, default: JSON.parse(text) as Json });
              setDefaultError(null);
            } catch {
              setDefaultError('Not a JSON value (strings need quotes).');
            }
          }}
        />
      </td>
      <td>
        <input
          className="input"
          aria-label={`Description of ${label}`}
          value={field.description ?? ''}
          onChange={(e) => onChange({ ...field, description: e.target.value || undefined })}
        />
      </td>
      <td className={styles.actions}>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          disabled={first}
          onClick={() => onMove(-1)}
          aria-label={`Move ${label} up`}
        >
          ↑
        </button>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          disabled={last}
          onClick={() => onMove(1)}
          aria-label={`Move ${label} down`}
        >
          ↓
        </button>
        <button
          type="button"
          className="btn btn-small btn-ghost btn-danger"
          onClick={onRemove}
          aria-label={`Remove ${label}`}
        >
          ✕
        </button>
      </td>
    </tr>
  );
}
