import { FormField } from '@/lib/components/FormField';
import {
  defaultMonitor,
  earlyStoppingSentence,
  type EarlyStoppingForm,
  type ParsedEarlyStopping,
} from '../../model/earlyStopping';

/**
 * The run form's "Early stopping": a checkbox (off by default), then, when on, its
 * patience, min delta, the figure watched (the run's logged figures) and whether to keep
 * the best epoch's program; a sentence says what it will do.
 */
export function EarlyStoppingFields({
  value,
  parsed,
  choices,
  validationSplit,
  onChange,
}: {
  value: EarlyStoppingForm;
  parsed: ParsedEarlyStopping;
  /** The figures the run's epochs log (`monitorChoices`). */
  choices: string[];
  validationSplit: number;
  onChange: (value: EarlyStoppingForm) => void;
}) {
  const set = (patch: Partial<EarlyStoppingForm>) => onChange({ ...value, ...patch });
  const monitor = value.monitor || defaultMonitor(validationSplit);
  const options = choices.includes(monitor) ? choices : [monitor, ...choices];
  return (
    <>
      <FormField
        label={
          <span title="stop training once the watched figure stops improving">Early stopping</span>
        }
        id="early-stopping-on"
      >
        {(control) => (
          <input
            {...control}
            type="checkbox"
            checked={value.on}
            onChange={(e) => set({ on: e.target.checked })}
            style={{ justifySelf: 'start' }}
          />
        )}
      </FormField>
      {value.on && (
        <>
          <FormField
            label="Patience (epochs)"
            id="early-stopping-patience"
            error={parsed.errors.patience}
          >
            {(control) => (
              <input
                {...control}
                className="input"
                inputMode="decimal"
                value={value.patience}
                onChange={(e) => set({ patience: e.target.value })}
              />
            )}
          </FormField>
          <FormField label="Min delta" id="early-stopping-min-delta" error={parsed.errors.minDelta}>
            {(control) => (
              <input
                {...control}
                className="input"
                inputMode="decimal"
                value={value.minDelta}
                onChange={(e) => set({ minDelta: e.target.value })}
              />
            )}
          </FormField>
          <FormField label="Monitor" id="early-stopping-monitor" error={parsed.errors.monitor}>
            {(control) => (
              <select
                {...control}
                className="select"
                value={monitor}
                onChange={(e) => set({ monitor: e.target.value })}
              >
                {options.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            )}
          </FormField>
          <FormField label="Restore best variables" id="early-stopping-restore">
            {(control) => (
              <input
                {...control}
                type="checkbox"
                checked={value.restoreBest}
                onChange={(e) => set({ restoreBest: e.target.checked })}
                style={{ justifySelf: 'start' }}
              />
            )}
          </FormField>
          {parsed.value && (
            <p className="note" data-testid="early-stopping-sentence">
              {earlyStoppingSentence(parsed.value)}.
            </p>
          )}
        </>
      )}
    </>
  );
}
