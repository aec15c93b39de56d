import { budgetMeters } from '../model/budget';
import { batchTotals, concurrencyLowered, type RunView, type Usage } from '../model/runView';

const NO_USAGE: Usage = {
  calls: 0,
  total_tokens: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  cost: 0,
  mean_latency_s: 0,
  failures: 0,
  mean_queue_ms: 0,
  mean_provider_ms: 0,
  cached_calls: 0,
  concurrency_bound: null,
  max_concurrency: null,
  concurrency_history: [],
  budget: null,
};

const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;

/**
 * LM usage so far: calls, tokens, cost and mean latency as the server last reported them,
 * and the training batches (with failed predictions) counted from the batch events since;
 * then where a call's time goes (queueing vs the provider), the concurrency bound, cache
 * hits, and the budget spent against each cap.
 */
export function UsagePanel({ view, active = false }: { view: RunView; active?: boolean }) {
  const u = view.usage ?? NO_USAGE;
  const { batches, failedPredictions } = batchTotals(view);
  const since = view.batches.batchesSinceUsage;
  const meters = budgetMeters(u.budget);
  const lowered = concurrencyLowered(u);
  return (
    <>
      <div className="stats" aria-label="LM usage">
        <div className="stat">
          <b data-testid="usage-calls">{u.calls.toLocaleString()}</b>
          <span>LM calls</span>
        </div>
        <div className="stat">
          <b>{u.total_tokens.toLocaleString()}</b>
          <span>
            tokens ({u.prompt_tokens.toLocaleString()} in / {u.completion_tokens.toLocaleString()}{' '}
            out)
          </span>
        </div>
        <div className="stat">
          <b>${u.cost.toFixed(4)}</b>
          <span>cost</span>
        </div>
        <div className="stat">
          <b>{(u.mean_latency_s * 1000).toFixed(0)} ms</b>
          <span>mean latency</span>
        </div>
        <div className="stat">
          <b>{u.failures}</b>
          <span>failed calls</span>
        </div>
        <div className="stat">
          <b data-testid="usage-batches">{batches.toLocaleString()}</b>
          <span>
            training batches ({failedPredictions} failed prediction
            {failedPredictions === 1 ? '' : 's'})
          </span>
        </div>
      </div>
      {u.calls > 0 && (
        <p className="note" data-testid="usage-timing">
          queue {ms(u.mean_queue_ms)} · provider {ms(u.mean_provider_ms)} per call
        </p>
      )}
      {u.concurrency_bound !== null && (
        <p className="note" data-testid="usage-concurrency">
          {u.concurrency_bound} call{u.concurrency_bound === 1 ? '' : 's'} at a time
          {u.max_concurrency !== null && u.max_concurrency !== u.concurrency_bound
            ? ` (of ${u.max_concurrency})`
            : ''}
          {lowered ? ' — lowered after rate limits' : ''}
        </p>
      )}
      {u.cached_calls > 0 && (
        <p className="note" data-testid="usage-cache">
          {u.cached_calls.toLocaleString('en-US')} answer{u.cached_calls === 1 ? '' : 's'} reused
          from your cache
        </p>
      )}
      {meters.length > 0 && (
        <div aria-label="Budget" data-testid="usage-budget">
          {meters.map((m) => (
            <div key={m.name} className="note">
              <span>{m.text}</span>
              <meter
                aria-label={`${m.name} budget`}
                min={0}
                max={m.cap}
                value={Math.min(m.spent, m.cap)}
                high={m.cap * 0.9}
                style={{ marginLeft: 8, verticalAlign: 'middle' }}
              />
            </div>
          ))}
        </div>
      )}
      {active && since > 0 && (
        <p className="note" data-testid="usage-pending">
          {since} batch{since === 1 ? '' : 'es'} trained since these figures; the worker reports LM
          usage at the end of each epoch.
        </p>
      )}
    </>
  );
}
