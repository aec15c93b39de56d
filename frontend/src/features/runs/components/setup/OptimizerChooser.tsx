import { useState } from 'react';
import { FormField } from '@/lib/components/FormField';
import {
  defaults,
  type FormValues,
  type OptimizerChoice,
  type OptimizerForm,
  type OptimizerName,
} from '../../model/runConfig';
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
  optimizers: OptimizerChoice[];
  value: OptimizerForm;
  errors: Record<string, string>;
  onChange: (value: OptimizerForm) => void;
}) {
  // The settings of the optimizers not shown, as last typed.
  const [stash, setStash] = useState<Partial<Record<OptimizerName, FormValues>>>({});
  const specs = optimizers.find((o) => o.name === value.name)?.params ?? [];
  const choose = (name: OptimizerName) => {
    const next = optimizers.find((o) => o.name === name);
    if (!next || name === value.name) return;
    setStash({ ...stash, [value.name]: value.values });
    onChange({ name, values: stash[name] ?? defaults(next.params) });
  };
  return (
    <>
      <FormField label="Optimizer" id="run-optimizer">
        {(control) => (
          <select
            {...control}
            className="select"
            value={value.name}
            onChange={(e) => choose(e.target.value as OptimizerName)}
          >
            {optimizers.map((o) => (
              <option key={o.name} value={o.name}>
                {o.name}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <ParamFields
        idPrefix={`opt-${value.name}`}
        specs={specs}
        values={value.values}
        errors={errors}
        onChange={(values) => onChange({ ...value, values })}
      />
    </>
  );
}
