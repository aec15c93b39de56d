import type { FieldType } from '@/lib/datamodel/schema';
import styles from '../designer.module.css';

const SCALARS = ['string', 'integer', 'number', 'boolean'] as const;

/** A field's type: a scalar, an enum (with its values), a list (of a type), or a model. */
export function TypePicker({
  type,
  models,
  onChange,
  label,
}: {
  type: FieldType;
  /** The models a field can hold. */
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
