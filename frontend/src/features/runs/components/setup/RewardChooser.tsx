import type { CatalogueEntry } from '@/lib/api/types';
import { FormField } from '@/lib/components/FormField';
import { defaults, findEntry, type EntryForm } from '../../model/runConfig';
import { builderDefaults, plainParams } from './configuredEntry';
import { EntryBuilders, type BuilderChoices } from './EntryBuilders';
import { ParamFields } from './ParamFields';

/**
 * The reward (from `rewards`) and its settings, the output-field masks among them; field
 * rules and a judge's fields where the reward has them (setup/EntryBuilders).
 */
export function RewardChooser({
  rewards,
  outputFields,
  value,
  errors,
  onChange,
  choices,
  ruleErrors = {},
  judgeErrors = {},
}: {
  rewards: CatalogueEntry[];
  /** The dataset's output fields, for the masks. */
  outputFields: string[];
  value: EntryForm;
  errors: Record<string, string>;
  onChange: (value: EntryForm) => void;
  /** What the field rules and judge fields pick from. */
  choices?: BuilderChoices;
  ruleErrors?: Record<string, string>;
  judgeErrors?: Record<string, string | undefined>;
}) {
  const entry = findEntry(rewards, value.name);
  const choose = (name: string) => {
    const next = findEntry(rewards, name);
    if (!next) return;
    // Masks picked so far carry over to the next reward when it has them too.
    const carried = Object.fromEntries(
      next.params
        .filter((p) => p.type === 'fields' && p.name in value.values)
        .map((p) => [p.name, value.values[p.name]!]),
    );
    onChange({
      name,
      values: { ...defaults(next.params), ...carried },
      ...builderDefaults(next, outputFields),
    });
  };
  return (
    <>
      <FormField label="Reward" id="run-reward" hint={entry?.description}>
        {(control) => (
          <select
            {...control}
            className="select"
            value={value.name}
            onChange={(e) => choose(e.target.value)}
          >
            {rewards.map((r) => (
              <option key={r.name} value={r.name}>
                {r.label}
              </option>
            ))}
          </select>
        )}
      </FormField>
      {choices && (
        <EntryBuilders
          idPrefix="reward"
          entry={entry}
          form={value}
          choices={{ ...choices, outputFields }}
          ruleErrors={ruleErrors}
          judgeErrors={{ ...errors, ...judgeErrors }}
          onChange={onChange}
        />
      )}
      <ParamFields
        idPrefix="reward"
        specs={plainParams(entry, entry?.params ?? [])}
        values={value.values}
        errors={errors}
        fields={outputFields}
        onChange={(values) => onChange({ ...value, values })}
      />
    </>
  );
}
