import { CheckboxGroup } from './CheckboxGroup';

/** The metrics (from `metrics`) to log beside the reward. */
export function MetricsChooser({
  metrics,
  value,
  onChange,
}: {
  metrics: readonly string[];
  value: string[];
  onChange: (value: string[]) => void;
}) {
  return (
    <CheckboxGroup
      label="Metrics"
      name="Metrics"
      options={metrics}
      picked={value}
      onChange={onChange}
    />
  );
}
