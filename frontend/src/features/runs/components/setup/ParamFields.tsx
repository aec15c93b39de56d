import { FormField } from '@/lib/components/FormField';
import type { FormValue, FormValues, ParamSpec } from '../../model/runConfig';
import { CheckboxGroup } from './CheckboxGroup';

/**
 * One labelled control per declared setting, chosen by its type: a checkbox (bool), a
 * select (a str with choices, and "none" first where the setting allows it), checkboxes over the dataset's output fields (fields), a
 * text input otherwise; the check's message beside it, the description as a tooltip.
 */
export function ParamFields({
  idPrefix,
  specs,
  values,
  errors,
  onChange,
  fields = [],
}: {
  idPrefix: string;
  specs: ParamSpec[];
  values: FormValues;
  errors: Record<string, string>;
  onChange: (values: FormValues) => void;
  /** The dataset's output fields, what `fields` settings pick from. */
  fields?: string[];
}) {
  return (
    <>
      {specs.map((spec) => {
        const set = (value: FormValue) => onChange({ ...values, [spec.name]: value });
        const label = <span title={spec.description || undefined}>{spec.label}</span>;
        if (spec.type === 'fields') {
          const picked = values[spec.name];
          return (
            <CheckboxGroup
              key={spec.name}
              label={label}
              name={spec.name}
              options={fields}
              picked={Array.isArray(picked) ? picked : []}
              onChange={set}
              empty={<span className="note">{spec.nullable ? 'all fields' : 'no fields'}</span>}
            />
          );
        }
        return (
          <FormField
            key={spec.name}
            label={label}
            id={`${idPrefix}-${spec.name}`}
            error={errors[spec.name]}
          >
            {(control) =>
              spec.type === 'bool' ? (
                <input
                  {...control}
                  type="checkbox"
                  checked={Boolean(values[spec.name])}
                  onChange={(e) => set(e.target.checked)}
                  style={{ justifySelf: 'start' }}
                />
              ) : spec.type === 'str' && spec.choices ? (
                <select
                  {...control}
                  className="select"
                  value={String(values[spec.name] ?? '')}
                  onChange={(e) => set(e.target.value)}
                >
                  {spec.nullable && <option value="">none</option>}
                  {spec.choices.map((c) => (
                    <option key={c}>{c}</option>
                  ))}
                </select>
              ) : (
                <input
                  {...control}
                  className="input"
                  inputMode={spec.type === 'int' || spec.type === 'float' ? 'decimal' : 'text'}
                  placeholder={
                    spec.type === 'str_list'
                      ? 'comma-separated'
                      : spec.nullable
                        ? 'none'
                        : undefined
                  }
                  value={String(values[spec.name] ?? '')}
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
