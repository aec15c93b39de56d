import { batchTotals, type RunView, type Usage } from '../model/runView';

const NO_USAGE: Usage = {
  calls: 0,
  total_tokens: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  cost: 0,
  mean_latency_s: 0,
  failures: 0,
};

/**
 * LM usage so far: calls, tokens, cost and mean latency as the server last reported them,
 * and the training batches (with failed predictions) counted from the batch events since.
 */
export function UsagePanel({ view, active = false }: { view: RunView; active?: boolean }) {
  const u = view.usage ?? NO_USAGE;
  const { batches, failedPredictions } = batchTotals(view);
  const since = view.batches.batchesSinceUsage;
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
      {active && since > 0 && (
        <p className="note" data-testid="usage-pending">
          {since} batch{since === 1 ? '' : 'es'} trained since these figures; the worker reports LM
          usage at the end of each epoch.
        </p>
      )}
    </>
  );
}
