/**
 * The run form's early stopping (`fit_config.early_stopping`, studio/runs/config.py
 * `EARLY_STOPPING_PARAMS`; the engine's `EarlyStopping`): off by default; on, training
 * stops once the watched figure has not improved by more than `min_delta` for `patience`
 * epochs. The figures it may watch are those the run's epochs log: `reward` and each
 * metric, with `val_` twins when the run holds validation rows. Pure.
 */

export type EarlyStoppingForm = {
  on: boolean;
  patience: string;
  minDelta: string;
  /** The figure watched; empty: the default (`val_reward` with validation rows, else `reward`). */
  monitor: string;
  restoreBest: boolean;
};

export const EARLY_STOPPING_OFF: EarlyStoppingForm = {
  on: false,
  patience: '2',
  minDelta: '0',
  monitor: '',
  restoreBest: false,
};

/** What `fit_config.early_stopping` holds when it is on. */
export type EarlyStopping = {
  patience: number;
  min_delta: number;
  monitor: string;
  restore_best_variables: boolean;
};

/**
 * The name a metric logs under: a catalogue name (a class name, `F1Score`) in snake_case,
 * as the engine names a metric by default (optimizer_core/metrics/metric.py). The server
 * checks the monitor against the metrics it builds, and names the choices when it refuses.
 */
export function loggedName(metric: string): string {
  return metric
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** The figures a run's epochs log: `val_` ones first when it holds validation rows. */
export function monitorChoices(metrics: readonly string[], validationSplit: number): string[] {
  const own = ['reward', ...metrics.map(loggedName)];
  return validationSplit > 0 ? [...own.map((name) => `val_${name}`), ...own] : own;
}

/** The figure watched when none is picked: the validation rows' reward where there are some. */
export function defaultMonitor(validationSplit: number): string {
  return validationSplit > 0 ? 'val_reward' : 'reward';
}

export type ParsedEarlyStopping = {
  /** null: off (or not valid). */
  value: EarlyStopping | null;
  errors: Partial<Record<'patience' | 'minDelta' | 'monitor', string>>;
};

/** Check the form against the server's rules (patience ≥ 1, min delta ≥ 0, a logged figure). */
export function parseEarlyStopping(
  form: EarlyStoppingForm,
  metrics: readonly string[],
  validationSplit: number,
): ParsedEarlyStopping {
  if (!form.on) return { value: null, errors: {} };
  const errors: ParsedEarlyStopping['errors'] = {};
  const patience = Number(form.patience.trim());
  if (form.patience.trim() === '' || !Number.isInteger(patience) || patience < 1)
    errors.patience = 'a whole number ≥ 1';
  else if (patience > 1000) errors.patience = 'must be ≤ 1000';
  const minDelta = form.minDelta.trim() === '' ? 0 : Number(form.minDelta.trim());
  if (!Number.isFinite(minDelta) || minDelta < 0) errors.minDelta = 'a number ≥ 0';
  const monitor = form.monitor || defaultMonitor(validationSplit);
  const choices = monitorChoices(metrics, validationSplit);
  if (!choices.includes(monitor))
    errors.monitor =
      monitor.startsWith('val_') && validationSplit <= 0
        ? `${monitor} needs a validation split above 0`
        : `not logged by this run: one of ${choices.join(', ')}`;
  if (Object.keys(errors).length) return { value: null, errors };
  return {
    value: {
      patience,
      min_delta: minDelta,
      monitor,
      restore_best_variables: form.restoreBest,
    },
    errors,
  };
}

/** "Stops after 2 epochs without a rise of val_reward (by more than 0.01)". */
export function earlyStoppingSentence(value: EarlyStopping): string {
  const epochs = `${value.patience} epoch${value.patience === 1 ? '' : 's'}`;
  const delta = value.min_delta > 0 ? ` (by more than ${value.min_delta})` : '';
  return `Stops after ${epochs} without a rise of ${value.monitor}${delta}`;
}
