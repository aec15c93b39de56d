import type { ReactNode } from 'react';
import { FormField } from '@/lib/components/FormField';
import { toggle } from '../../model/runSetup';

/** A labelled row of checkboxes picking some of `options`. */
export function CheckboxGroup({
  label,
  name,
  options,
  labelOf = (option) => option,
  picked,
  onChange,
  empty,
}: {
  label: ReactNode;
  /** The group's accessible name. */
  name: string;
  options: readonly string[];
  /** What each option shows (default: the option itself). */
  labelOf?: (option: string) => ReactNode;
  picked: string[];
  onChange: (picked: string[]) => void;
  /** Shown when there is nothing to pick. */
  empty?: ReactNode;
}) {
  return (
    <FormField label={label} group>
      {(control) => (
        <div {...control} role="group" aria-label={name}>
          {options.map((option) => (
            <label key={option} style={{ marginRight: 10 }}>
              <input
                type="checkbox"
                checked={picked.includes(option)}
                onChange={() => onChange(toggle(picked, option))}
              />{' '}
              {labelOf(option)}
            </label>
          ))}
          {options.length === 0 && empty}
        </div>
      )}
    </FormField>
  );
}
