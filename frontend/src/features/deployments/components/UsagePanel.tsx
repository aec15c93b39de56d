import { useUsage } from '../api/deploymentsUsage';
import type { UsageTotals } from '../api/types';

const money = (v: number) => `$${v.toFixed(v < 1 ? 4 : 2)}`;
const seconds = (v: number) => (v < 1 ? `${(v * 1000).toFixed(0)} ms` : `${v.toFixed(2)} s`);

export function UsageStats({ totals }: { totals: UsageTotals }) {
  return (
    <div className="stats">
      <div className="stat">
        <b data-testid="usage-predictions">{totals.predictions}</b>
        <span>predictions</span>
      </div>
      <div className="stat">
        <b>{totals.failures}</b>
        <span>failed</span>
      </div>
      <div className="stat">
        <b>{totals.lm_calls}</b>
        <span>LM calls</span>
      </div>
      <div className="stat">
        <b>{totals.total_tokens}</b>
        <span>tokens</span>
      </div>
      <div className="stat">
        <b>{money(totals.cost)}</b>
        <span>cost</span>
      </div>
      <div className="stat">
        <b>{seconds(totals.mean_latency_s)}</b>
        <span>mean latency</span>
      </div>
    </div>
  );
}

/** Usage of a deployment: totals, API calls against batch jobs, and per day. */
export function UsagePanel({ name }: { name: string }) {
  const usage = useUsage(name);
  if (usage.isError) return <div className="alert">{usage.error.message}</div>;
  if (!usage.data) return <p className="note">Loading usage…</p>;
  const { totals, api, batch, days } = usage.data;
  return (
    <div className="card">
      <h2>Usage</h2>
      <UsageStats totals={totals} />
      <table className="table" style={{ marginTop: 12 }}>
        <thead>
          <tr>
            <th>Day</th>
            <th>Source</th>
            <th className="num">Requests</th>
            <th className="num">Predictions</th>
            <th className="num">Failed</th>
            <th className="num">Tokens</th>
            <th className="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={`${day.day}-${day.source}`}>
              <td>{day.day}</td>
              <td>{day.source === 'api' ? 'API' : 'batch'}</td>
              <td className="num">{day.requests}</td>
              <td className="num">{day.predictions}</td>
              <td className="num">{day.failures}</td>
              <td className="num">{day.prompt_tokens + day.completion_tokens}</td>
              <td className="num">{money(day.cost)}</td>
            </tr>
          ))}
          {!days.length && (
            <tr>
              <td colSpan={7} className="note">
                No calls yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <p className="note">
        API: {api.predictions} predictions, {money(api.cost)} · batch: {batch.predictions}{' '}
        predictions, {money(batch.cost)}
      </p>
    </div>
  );
}
