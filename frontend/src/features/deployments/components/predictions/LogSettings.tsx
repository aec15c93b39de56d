import { useState } from 'react';
import { ApiError } from '@/lib/api/errors';
import { FormField } from '@/lib/components/FormField';
import { useUpdateDeployment } from '../../api/deploymentsPartialUpdate';
import type { Deployment } from '../../api/types';

type Draft = { on: boolean; rate: string; days: string };

/** Whether the deployment keeps its predictions, which share of them, and for how long. */
export function LogSettings({ deployment }: { deployment: Deployment }) {
  const saved: Draft = {
    on: deployment.log_predictions,
    rate: String(Math.round(deployment.log_sample_rate * 100)),
    days: String(deployment.log_retention_days),
  };
  const [draft, setDraft] = useState<Draft | null>(null);
  const shown = draft ?? saved;
  const update = useUpdateDeployment(deployment.name);
  const problems = update.error instanceof ApiError ? update.error.problems : [];
  const errorAt = (path: string) => problems.find((p) => p.path === path)?.message;
  const rate = Number(shown.rate);
  const days = Number(shown.days);
  const rateError =
    shown.rate.trim() === '' || !(rate >= 0 && rate <= 100) ? 'a percentage from 0 to 100' : null;
  const daysError = !Number.isInteger(days) || days < 1 || days > 365 ? 'days from 1 to 365' : null;
  const edit = (change: Partial<Draft>) => setDraft({ ...shown, ...change });
  return (
    <form
      className="card"
      aria-label="Logging"
      onSubmit={(e) => {
        e.preventDefault();
        if (rateError || daysError) return;
        update.mutate(
          { log_predictions: shown.on, log_sample_rate: rate / 100, log_retention_days: days },
          { onSuccess: () => setDraft(null) },
        );
      }}
    >
      <h2>Logging</h2>
      <p className="note" data-testid="log-state">
        {deployment.log_predictions
          ? `Keeping ${saved.rate}% of predictions for ${saved.days} days.`
          : 'Predictions are not kept.'}{' '}
        A kept prediction holds what the caller sent: turn this on only for inputs you may store.
      </p>
      <label style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
        <input
          type="checkbox"
          checked={shown.on}
          onChange={(e) => edit({ on: e.target.checked })}
        />
        Keep predictions
      </label>
      {errorAt('log_predictions') && (
        <div className="field-error">{errorAt('log_predictions')}</div>
      )}
      <FormField label="Sampled (%)" id="log-rate" error={rateError ?? errorAt('log_sample_rate')}>
        {(control) => (
          <input
            {...control}
            className="input"
            inputMode="decimal"
            value={shown.rate}
            onChange={(e) => edit({ rate: e.target.value })}
          />
        )}
      </FormField>
      <FormField
        label="Kept for (days)"
        id="log-days"
        error={daysError ?? errorAt('log_retention_days')}
      >
        {(control) => (
          <input
            {...control}
            className="input"
            inputMode="numeric"
            value={shown.days}
            onChange={(e) => edit({ days: e.target.value })}
          />
        )}
      </FormField>
      <button
        type="submit"
        className="btn"
        disabled={draft === null || !!rateError || !!daysError || update.isPending}
      >
        Save
      </button>
    </form>
  );
}
