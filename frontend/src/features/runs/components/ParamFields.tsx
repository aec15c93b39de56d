import type { FormValues, ParamSpec } from '../model/runConfig';

/** One labelled input per parameter, with its check's message beside it. */
export function ParamFields({
  idPrefix,
  specs,
  values,
  errors,
  onChange,
}: {
  idPrefix: string;
  specs: ParamSpec[];
  values: FormValues;
  errors: Record<string, string>;
  onChange: (values: FormValues) => void;
}) {
  return (
    <>
      {specs.map((spec) => {
        const id = `${idPrefix}-${spec.key}`;
        const error = errors[spec.key];
        const set = (value: string | boolean) => onChange({ ...values, [spec.key]: value });
        return (
          <div className="form-row" key={spec.key}>
            <label htmlFor={id}>{spec.label}</label>
            {spec.type === 'bool' ? (
              <input
                id={id}
                type="checkbox"
                checked={Boolean(values[spec.key])}
                onChange={(e) => set(e.target.checked)}
                style={{ justifySelf: 'start' }}
              />
            ) : spec.type === 'choice' ? (
              <select
                id={id}
                className="select"
                value={String(values[spec.key])}
                onChange={(e) => set(e.target.value)}
              >
                {spec.choices.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                className="input"
                inputMode={spec.type === 'text' ? 'text' : 'decimal'}
                placeholder={spec.type === 'int' && spec.optional ? 'none' : undefined}
                aria-invalid={error ? 'true' : undefined}
                aria-describedby={error ? `${id}-error` : undefined}
                value={String(values[spec.key] ?? '')}
                onChange={(e) => set(e.target.value)}
              />
            )}
            {error && (
              <div className="field-error" id={`${id}-error`}>
                {error}
              </div>
            )}
          </div>
        );
      })}
    </>
  );
}
