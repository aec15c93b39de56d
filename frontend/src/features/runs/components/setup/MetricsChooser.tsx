import type { CatalogueEntry } from '@/lib/api/types';
import { defaults, findEntry, ownParams, type EntryForm } from '../../model/runConfig';
import { CheckboxGroup } from './CheckboxGroup';
import { builderDefaults, plainParams } from './configuredEntry';
import { EntryBuilders, type BuilderChoices } from './EntryBuilders';
import { ParamFields } from './ParamFields';

/**
 * The metrics (from `metrics`) to log beside the reward, and the settings of each picked
 * one; the output-field masks are the reward's (see `ownParams`); field rules and a
 * judge's fields where a metric has them (setup/EntryBuilders).
 */
export function MetricsChooser({
  metrics,
  reward,
  value,
  errors,
  onChange,
  choices,
  ruleErrors = {},
  judgeErrors = {},
}: {
  metrics: CatalogueEntry[];
  /** The chosen reward's entry: its masks apply to the metrics. */
  reward: CatalogueEntry | undefined;
  value: EntryForm[];
  /** Each picked metric's errors, by name. */
  errors: Record<string, Record<string, string>>;
  onChange: (value: EntryForm[]) => void;
  /** What the field rules and judge fields pick from. */
  choices?: BuilderChoices;
  /** Each picked metric's rule and judge errors, by name. */
  ruleErrors?: Record<string, Record<string, string>>;
  judgeErrors?: Record<string, Record<string, string | undefined>>;
}) {
  const pick = (names: string[]) =>
    onChange(
      metrics
        .filter((m) => names.includes(m.name))
        .map(
          (m) =>
            value.find((v) => v.name === m.name) ?? {
              name: m.name,
              values: defaults(m.params),
              ...builderDefaults(m, choices?.outputFields ?? []),
            },
        ),
    );
  const update = (chosen: EntryForm) =>
    onChange(value.map((v) => (v.name === chosen.name ? chosen : v)));
  return (
    <>
      <CheckboxGroup
        label="Metrics"
        name="Metrics"
        options={metrics.map((m) => m.name)}
        labelOf={(name) => findEntry(metrics, name)?.label ?? name}
        picked={value.map((v) => v.name)}
        onChange={pick}
      />
      {value.map((chosen) => {
        const entry = findEntry(metrics, chosen.name);
        const specs = entry ? plainParams(entry, ownParams(entry, reward)) : [];
        return (
          <div key={chosen.name}>
            {choices && (
              <EntryBuilders
                idPrefix={`metric-${chosen.name}`}
                entry={entry}
                form={chosen}
                choices={choices}
                ruleErrors={ruleErrors[chosen.name] ?? {}}
                judgeErrors={{ ...errors[chosen.name], ...judgeErrors[chosen.name] }}
                onChange={update}
              />
            )}
            {specs.length > 0 && (
              <ParamFields
                idPrefix={`metric-${chosen.name}`}
                specs={specs}
                values={chosen.values}
                errors={errors[chosen.name] ?? {}}
                onChange={(values) => update({ ...chosen, values })}
              />
            )}
          </div>
        );
      })}
    </>
  );
}
