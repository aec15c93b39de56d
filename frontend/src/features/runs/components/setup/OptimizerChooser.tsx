import { useState } from 'react';
import type { CatalogueEntry } from '@/lib/api/types';
import { FormField } from '@/lib/components/FormField';
import { defaults, findEntry, type EntryForm, type FormValues } from '../../model/runConfig';
import { ParamFields } from './ParamFields';

/**
 * The optimizer (from `optimizers`) and its settings. Switching keeps what was typed
 * for the other one, so switching back finds it again.
 */
export function OptimizerChooser({
  optimizers,
  value,
  errors,
  onChange,
}: {
  optimizers: CatalogueEntry[];
  value: EntryForm;
  errors: Record<string, string>;
  onChange: (value: EntryForm) => void;
}) {
  // The settings of the optimizers not shown, as last typed.
  const [stash, setStash] = useState<Record<string, FormValues>>({});
  const entry = findEntry(optimizers, value.name);
  const choose = (name: string) => {
    const next = findEntry(optimizers, name);
    if (!next || name === value.name) return;
    setStash({ ...stash, [value.name]: value.values });
    onChange({ name, values: stash[name] ?? defaults(next.params) });
  };
  return (
    <>
      <FormField label="Optimizer" id="run-optimizer" hint={entry?.description}>
        {(control) => (
          <select
            {...control}
            className="select"
            value={value.name}
            onChange={(e) => choose(e.target.value)}
          >
            {optimizers.map((o) => (
              <option key={o.name} value={o.name}>
                {o.label}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <ParamFields
        idPrefix={`opt-${value.name}`}
        specs={entry?.params ?? []}
        values={value.values}
        errors={errors}
        onChange={(values) => onChange({ ...value, values })}
      />
    </>
  );
}
