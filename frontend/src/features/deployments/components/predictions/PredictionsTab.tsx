import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useHistory } from '../../api/deploymentsHistory';
import {
  listPredictions,
  predictionsPageKey,
  usePredictions,
} from '../../api/deploymentsPredictionsList';
import type { Deployment, PredictionFilters, PredictionLog } from '../../api/types';
import {
  currentId,
  isFinished,
  judgedCount,
  keyAction,
  mark,
  next,
  previous,
  startQueue,
  type QueueState,
} from '../../model/reviewQueue';
import { LogSettings } from './LogSettings';
import { PredictionReview } from './PredictionReview';
import { ToDataset } from './ToDataset';

type FilterDraft = {
  since: string;
  until: string;
  target: string;
  failed: string;
  verdict: string;
  field: string;
  value: string;
};
const NO_FILTER: FilterDraft = {
  since: '',
  until: '',
  target: '',
  failed: '',
  verdict: '',
  field: '',
  value: '',
};

/** The form's fields as the list's query (a local date and time read as the browser's zone). */
function toFilters(draft: FilterDraft): PredictionFilters {
  const moment = (text: string) => (text ? new Date(text).toISOString() : undefined);
  const filters: PredictionFilters = {
    since: moment(draft.since),
    until: moment(draft.until),
    target: draft.target ? Number(draft.target) : undefined,
    failed: draft.failed ? draft.failed === 'true' : undefined,
    verdict: (draft.verdict || undefined) as PredictionFilters['verdict'],
    ...(draft.field ? { output_field: draft.field, output_value: draft.value } : {}),
  };
  return Object.fromEntries(
    Object.entries(filters).filter(([, v]) => v !== undefined),
  ) as PredictionFilters;
}

const clip = (text: string, length = 60) =>
  text.length > length ? `${text.slice(0, length - 1)}…` : text;
const short = (value: unknown) => clip(value == null ? '' : JSON.stringify(value));

/** The prediction log: its settings, the list with filters and paging, review, datasets. */
export function PredictionsTab({ deployment }: { deployment: Deployment }) {
  const name = deployment.name;
  const [draft, setDraft] = useState<FilterDraft>(NO_FILTER);
  const [filters, setFilters] = useState<PredictionFilters>({});
  const [cursors, setCursors] = useState<string[]>([]);
  const [openId, setOpenId] = useState<number | null>(null);
  const [selected, setSelected] = useState<number[]>([]);
  const [queue, setQueue] = useState<QueueState | null>(null);
  const [queueRows, setQueueRows] = useState<Record<number, PredictionLog>>({});
  const cursor = cursors.at(-1) ?? null;
  const list = usePredictions(name, filters, cursor);
  const history = useHistory(name);
  const versions = new Map((history.data ?? []).map((t) => [t.id, t]));
  const rows = list.data?.results ?? [];
  const versionOf = (id: number) => {
    const target = versions.get(id);
    if (!target) return `#${id}`;
    return target.run !== null ? `run #${target.run}` : `v${target.version_number}`;
  };
  const outputSchema = (row: PredictionLog) => {
    const schemas = versions.get(row.target)?.output_schemas ?? [];
    return schemas.length === 1 ? schemas[0]!.schema : undefined;
  };
  const edit = (change: Partial<FilterDraft>) => setDraft({ ...draft, ...change });
  const open = rows.find((r) => r.id === openId) ?? null;
  const queueId = queue ? currentId(queue) : null;
  const queueRow =
    queueId === null ? null : (rows.find((r) => r.id === queueId) ?? queueRows[queueId] ?? null);

  // Past the last row (no row shown, so no review panel to take the keys): back, or leave.
  const idle = queue !== null && queueRow === null;
  useEffect(() => {
    if (!idle) return undefined;
    const onKey = (event: KeyboardEvent) => {
      const action = keyAction(event.key, false);
      if (action === 'leave') setQueue(null);
      else if (action === 'previous') setQueue((state) => state && previous(state));
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [idle]);

  const startReview = () => {
    setQueueRows(Object.fromEntries(rows.map((r) => [r.id, r])));
    setQueue(startQueue(rows));
    setOpenId(null);
  };
  // The queue goes on over the older page: fetched (into the list's cache), then shown.
  const client = useQueryClient();
  const continueOlder = async () => {
    const older = list.data?.next;
    if (!older) return;
    const data = await client.fetchQuery({
      queryKey: predictionsPageKey(name, filters, older),
      queryFn: () => listPredictions(name, filters, older),
    });
    setCursors([...cursors, older]);
    setQueueRows(Object.fromEntries(data.results.map((r) => [r.id, r])));
    setQueue(startQueue(data.results));
  };

  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 14 }}>
      <LogSettings deployment={deployment} />
      <form
        className="card"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(toFilters(draft));
          setCursors([]);
          setSelected([]);
          setQueue(null);
        }}
      >
        <h2>Predictions</h2>
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: 10, alignItems: 'end' }}>
          <label>
            From
            <input
              type="datetime-local"
              className="input"
              value={draft.since}
              onChange={(e) => edit({ since: e.target.value })}
            />
          </label>
          <label>
            Until
            <input
              type="datetime-local"
              className="input"
              value={draft.until}
              onChange={(e) => edit({ until: e.target.value })}
            />
          </label>
          <label>
            Version
            <select
              className="input"
              value={draft.target}
              onChange={(e) => edit({ target: e.target.value })}
            >
              <option value="">Any</option>
              {(history.data ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {versionOf(t.id)} ({t.reason} {new Date(t.created_at).toLocaleDateString()})
                </option>
              ))}
            </select>
          </label>
          <label>
            Outcome
            <select
              className="input"
              value={draft.failed}
              onChange={(e) => edit({ failed: e.target.value })}
            >
              <option value="">Any</option>
              <option value="true">Failed</option>
              <option value="false">Answered</option>
            </select>
          </label>
          <label>
            Verdict
            <select
              className="input"
              value={draft.verdict}
              onChange={(e) => edit({ verdict: e.target.value })}
            >
              <option value="">Any</option>
              <option value="none">Not reviewed</option>
              <option value="right">Right</option>
              <option value="wrong">Wrong</option>
            </select>
          </label>
          <label>
            Output field
            <input
              className="input"
              value={draft.field}
              placeholder="answer"
              onChange={(e) => edit({ field: e.target.value })}
            />
          </label>
          <label>
            = value
            <input
              className="input"
              value={draft.value}
              onChange={(e) => edit({ value: e.target.value })}
            />
          </label>
          <button type="submit" className="btn">
            Apply
          </button>
        </div>
        {list.isError && (
          <div className="alert" role="alert" style={{ marginTop: 8 }}>
            {list.error.message}
          </div>
        )}
      </form>

      <div className="card">
        <div className="page-head">
          <button
            type="button"
            className="btn btn-primary"
            disabled={!rows.some((r) => !r.verdict) || queue !== null}
            onClick={startReview}
          >
            Review
          </button>
          <span className="note">
            {selected.length ? `${selected.length} selected` : 'Tick rows to add them to a dataset'}
          </span>
          <span className="spacer" />
          <button
            type="button"
            className="btn btn-ghost"
            disabled={cursors.length === 0}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            Newer
          </button>
          <button
            type="button"
            className="btn btn-ghost"
            disabled={!list.data?.next}
            onClick={() => list.data?.next && setCursors([...cursors, list.data.next])}
          >
            Older
          </button>
        </div>
        {queue !== null && (
          <div role="region" aria-label="Review queue" style={{ marginBottom: 10 }}>
            <p className="note" data-testid="queue-status">
              {isFinished(queue)
                ? `Done: ${judgedCount(queue)} of ${queue.ids.length} reviewed.`
                : `Reviewing ${queue.position + 1} of ${queue.ids.length} (${judgedCount(queue)} reviewed).`}{' '}
              Keys: j / ↓ next, k previous, r right, w wrong, c correction, Esc leave.
            </p>
            <button type="button" className="btn btn-ghost" onClick={() => setQueue(null)}>
              Leave the review
            </button>
            {isFinished(queue) && list.data?.next && (
              <button type="button" className="btn" onClick={() => void continueOlder()}>
                Go on with older predictions
              </button>
            )}
            {queueRow && (
              <PredictionReview
                key={queueRow.id}
                name={name}
                row={queueRow}
                outputSchema={outputSchema(queueRow)}
                onReviewed={(verdict, stored) => {
                  setQueueRows((known) => ({ ...known, [stored.id]: stored }));
                  setQueue((state) => (state ? mark(state, verdict) : state));
                }}
                onQueueKey={(action) =>
                  setQueue((state) => {
                    if (!state || action === 'leave') return null;
                    return action === 'next' ? next(state) : previous(state);
                  })
                }
              />
            )}
          </div>
        )}
        {rows.length === 0 ? (
          <p className="note">
            {list.isPending
              ? 'Loading…'
              : deployment.log_predictions
                ? 'No prediction matches.'
                : 'No predictions kept: turn logging on above.'}
          </p>
        ) : (
          <table className="table" aria-label="Predictions">
            <thead>
              <tr>
                <th />
                <th>Time</th>
                <th>Version</th>
                <th>Input</th>
                <th>Output</th>
                <th className="num">Latency</th>
                <th className="num">Tokens</th>
                <th>Verdict</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr
                  key={row.id}
                  aria-selected={row.id === openId}
                  onClick={() => setOpenId(row.id === openId ? null : row.id)}
                  style={{ cursor: 'pointer' }}
                >
                  <td onClick={(e) => e.stopPropagation()}>
                    <input
                      type="checkbox"
                      aria-label={`Select prediction ${row.id}`}
                      checked={selected.includes(row.id)}
                      onChange={(e) =>
                        setSelected(
                          e.target.checked
                            ? [...selected, row.id]
                            : selected.filter((id) => id !== row.id),
                        )
                      }
                    />
                  </td>
                  <td>{new Date(row.created_at).toLocaleString()}</td>
                  <td>{versionOf(row.target)}</td>
                  <td className="mono">{short(row.inputs)}</td>
                  <td className="mono">
                    {row.failed ? (
                      <span className="field-error">{clip(row.error, 80)}</span>
                    ) : (
                      short(row.outputs)
                    )}
                  </td>
                  <td className="num">{row.latency_s.toFixed(2)} s</td>
                  <td className="num">{row.prompt_tokens + row.completion_tokens}</td>
                  <td>
                    {row.verdict ?? '—'}
                    {row.correction != null ? ' (corrected)' : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {open && queue === null && (
        <PredictionReview key={open.id} name={name} row={open} outputSchema={outputSchema(open)} />
      )}
      <ToDataset name={name} selected={selected} filters={filters} />
    </div>
  );
}
