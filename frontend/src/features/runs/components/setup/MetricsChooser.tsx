import type { CatalogueEntry } from '@/lib/api/types';
import { defaults, findEntry, ownParams, type EntryForm } from '../../model/runConfig';
import { CheckboxGroup } from './CheckboxGroup';
import { ParamFields } from './ParamFields';

/**
 * The metrics (from `metrics`) to log beside the reward, and the settings of each picked
 * one; the output-field masks are the reward's (see `ownParams`).
 */
export function MetricsChooser({
  metrics,
  reward,
  value,
  errors,
  onChange,
}: {
  metrics: CatalogueEntry[];
  /** The chosen reward's entry: its masks apply to the metrics. */
  reward: CatalogueEntry | undefined;
  value: EntryForm[];
  /** Each picked metric's errors, by name. */
  errors: Record<string, Record<string, string>>;
  onChange: (value: EntryForm[]) => void;
}) {
  const pick = (names: string[]) =>
    onChange(
      metrics
        .filter((m) => names.includes(m.name))
        .map(
          (m) =>
            value.find((v) => v.name === m.name) ?? { name: m.name, values: defaults(m.params) },
        ),
    );
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
        const specs = entry ? ownParams(entry, reward) : [];
        if (specs.length === 0) return null;
        return (
          <ParamFields
            key={chosen.name}
            idPrefix={`metric-${chosen.name}`}
            specs={specs}
            values={chosen.values}
            errors={errors[chosen.name] ?? {}}
            onChange={(values) =>
              onChange(value.map((v) => (v.name === chosen.name ? { ...v, values } : v)))
            }
          />
        );
      })}
    </>
  );
}
