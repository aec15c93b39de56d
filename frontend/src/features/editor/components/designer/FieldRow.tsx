import { useState } from 'react';
import { describeType, type FieldDef } from '@/lib/datamodel/schema';
import { parseDefault, sameJsonText, withDefault } from '../../model/dataModelDraft';
import styles from '../designer.module.css';
import { TypePicker } from './TypePicker';

/** One field of the model: name, type, required, default (typed as JSON), description. */
export function FieldRow({
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
            const parsed = parseDefault(text);
            if ('error' in parsed) return setDefaultError(parsed.error);
            setDefaultError(null);
            onChange(withDefault(field, parsed.value));
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
