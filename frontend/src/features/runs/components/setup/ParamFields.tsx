import { FormField } from '@/lib/components/FormField';
import type { FormValues, ParamSpec } from '../../model/runConfig';

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
        const set = (value: string | boolean) => onChange({ ...values, [spec.key]: value });
        return (
          <FormField
            key={spec.key}
            label={spec.label}
            id={`${idPrefix}-${spec.key}`}
            error={errors[spec.key]}
          >
            {(control) =>
              spec.type === 'bool' ? (
                <input
                  {...control}
                  type="checkbox"
                  checked={Boolean(values[spec.key])}
                  onChange={(e) => set(e.target.checked)}
                  style={{ justifySelf: 'start' }}
                />
              ) : spec.type === 'choice' ? (
                <select
                  {...control}
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
                  {...control}
                  className="input"
                  inputMode={spec.type === 'text' ? 'text' : 'decimal'}
                  placeholder={spec.type === 'int' && spec.optional ? 'none' : undefined}
                  value={String(values[spec.key] ?? '')}
                  onChange={(e) => set(e.target.value)}
                />
              )
            }
          </FormField>
        );
      })}
    </>
  );
}
