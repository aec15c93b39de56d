import { useState } from 'react';
import type { LibraryModel } from '@/lib/datamodel/library';
import { FormField } from '@/lib/components/FormField';

const TYPED = '__typed__';

/** Choose a DataModel from the editor's library, or type its JSON schema. */
export function SchemaPicker({
  label,
  models,
  example,
  onChange,
}: {
  label: string;
  models: LibraryModel[];
  /** The schema offered when typing (a starting point). */
  example: Record<string, unknown>;
  onChange: (schema: unknown | null, error: string | null) => void;
}) {
  const [choice, setChoice] = useState<string>(models[0]?.name ?? TYPED);
  const [text, setText] = useState(() => JSON.stringify(example, null, 2));
  const [error, setError] = useState<string | null>(null);
  const parse = (value: string) => {
    try {
      const parsed: unknown = JSON.parse(value);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('a JSON schema is an object');
      setError(null);
      onChange(parsed, null);
    } catch (e) {
      const message = `Not a JSON schema: ${(e as Error).message}`;
      setError(message);
      onChange(null, message);
    }
  };
  return (
    // The error is about the typed schema: it describes the textarea, not the select.
    <FormField label={label} error={error} style={{ alignItems: 'start' }}>
      {({ id, ...typed }) => (
        <div>
          <select
            id={id}
            className="select"
            value={choice}
            onChange={(e) => {
              setChoice(e.target.value);
              const model = models.find((m) => m.name === e.target.value);
              if (model) onChange(model.schema, null);
              else parse(text);
            }}
          >
            {models.map((m) => (
              <option key={m.name} value={m.name}>
                {m.name} (
                {Object.keys((m.schema.properties as object | undefined) ?? {}).join(', ')})
              </option>
            ))}
            <option value={TYPED}>Type a schema…</option>
          </select>
          {choice === TYPED && (
            <textarea
              {...typed}
              className="textarea mono"
              rows={6}
              aria-label={`${label} JSON schema`}
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                parse(e.target.value);
              }}
            />
          )}
        </div>
      )}
    </FormField>
  );
}
