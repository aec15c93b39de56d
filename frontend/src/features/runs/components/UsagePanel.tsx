import type { Usage } from '../model/runView';

/** LM usage so far: calls, tokens, cost and mean latency. */
export function UsagePanel({ usage }: { usage: Usage | null }) {
  const u = usage ?? {
    calls: 0,
    total_tokens: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    cost: 0,
    mean_latency_s: 0,
    failures: 0,
  };
  return (
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
    </div>
  );
}
