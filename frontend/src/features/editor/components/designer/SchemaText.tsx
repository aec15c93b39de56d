import styles from '../designer.module.css';

/** The model as JSON schema text, editable; what is wrong with the text below it. */
export function SchemaText({
  text,
  error,
  onChange,
}: {
  text: string;
  error: string | null;
  onChange: (text: string) => void;
}) {
  return (
    <>
      <label className={styles.schemaLabel} htmlFor="designer-schema">
        JSON schema <span>(as pydantic's model_json_schema() emits it; editable)</span>
      </label>
      <textarea
        id="designer-schema"
        className="textarea mono"
        rows={10}
        spellCheck={false}
        value={text}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'designer-schema-error' : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {error && (
        <p id="designer-schema-error" className={styles.schemaError} role="alert">
          {error}
        </p>
      )}
    </>
  );
}
