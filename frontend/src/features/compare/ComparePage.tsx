import { Fragment, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useEveryRunExamples } from '@/lib/api/ops/runsExamples';
import { useRuns } from '@/lib/api/ops/runsList';
import { EChart, type EChartHandle } from '@/lib/charts/EChart';
import { GainVerdict, VersusVerdict } from '@/lib/components/GainVerdict';
import { TraceSteps } from '@/lib/components/TraceSteps';
import { downloadText } from '@/lib/download';
import { useCompare } from './api/runsCompare';
import { VariableDiff } from './components/VariableDiff';
import {
  barsOption,
  beforeAfter,
  changeBaseline,
  exampleRows,
  examplesCsv,
  figures,
  filterExamples,
  hasFeedback,
  overlayOption,
  runLabel,
  sortExamples,
  type ExampleFilter,
  type ExampleSort,
} from './model/compareData';

const cell = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const count = (n: number) => n.toLocaleString('en-US');

function downloadPng(handle: EChartHandle | null, filename: string) {
  const url = handle?.toPng();
  if (!url) return;
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
}

/** Compare runs (route /compare?ids=1,2): curves, before / after, examples, trained variables. */
export default function ComparePage() {
  const [params, setParams] = useSearchParams();
  const ids = useMemo(
    () =>
      (params.get('ids') ?? '')
        .split(',')
        .map(Number)
        .filter((n) => Number.isInteger(n) && n > 0),
    [params],
  );
  const runs = useRuns();
  const compare = useCompare(ids);
  const [figure, setFigure] = useState('reward');
  const [sort, setSort] = useState<ExampleSort>({ by: 'input', desc: false });
  const [filter, setFilter] = useState<ExampleFilter>('all');
  // The rows whose traces are open, by key (their input): they stay open through a sort.
  const [traced, setTraced] = useState<ReadonlySet<string>>(new Set());
  const toggleTrace = (key: string) =>
    setTraced((was) => {
      const now = new Set(was);
      if (now.has(key)) now.delete(key);
      else now.add(key);
      return now;
    });
  const curvesChart = useRef<EChartHandle>(null);
  const barsChart = useRef<EChartHandle>(null);
  const data = compare.data;
  const shown =
    data && figures(data).includes(figure) ? figure : ((data && figures(data)[0]) ?? 'reward');
  const overlay = useMemo(() => (data ? overlayOption(data, shown) : null), [data, shown]);
  const bars = useMemo(() => (data ? barsOption(beforeAfter(data)) : null), [data]);
  // The test rows come from each run's examples endpoint, every page at once; the table
  // (pairing rows by input across runs) waits for all of them.
  const rowCounts = useMemo(
    () => (data?.runs ?? []).map((r) => ({ id: r.id, count: r.example_count })),
    [data],
  );
  const examples = useEveryRunExamples(rowCounts);
  const rowsIn = !!data && data.runs.every((r) => examples.byRun.has(r.id));
  const rows = useMemo(() => {
    if (!data || !rowsIn) return [];
    return sortExamples(filterExamples(exampleRows(data, examples.byRun), filter), sort);
  }, [data, rowsIn, examples.byRun, filter, sort]);
  // The reward's feedback shows under each output only when it said something of some row.
  const feedback = hasFeedback(rows);
  const toggleRun = (id: number) => {
    const next = ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id].slice(-8);
    setParams(next.length ? { ids: next.join(',') } : {});
  };
  const sortBy = (by: ExampleSort['by']) =>
    setSort({ by, desc: sort.by === by ? !sort.desc : by !== 'input' });
  return (
    <section className="page">
      <div className="page-head">
        <h1>Compare runs</h1>
      </div>
      <fieldset className="card" aria-label="Runs to compare">
        <legend className="note">Pick up to 8 runs</legend>
        {(runs.data ?? []).map((r) => (
          <label key={r.id} style={{ marginRight: 14, display: 'inline-block' }}>
            <input type="checkbox" checked={ids.includes(r.id)} onChange={() => toggleRun(r.id)} />{' '}
            {runLabel(r)} <span className={`badge badge-${r.state}`}>{r.state}</span>
          </label>
        ))}
      </fieldset>
      {compare.isError && <div className="alert">{compare.error.message}</div>}
      {ids.length === 0 && <p className="note">Pick runs above.</p>}
      {data && overlay && bars && (
        <>
          <div className="grid-2">
            <div className="card">
              <div className="page-head">
                <label htmlFor="compare-figure" className="note">
                  Figure
                </label>
                <select
                  id="compare-figure"
                  className="select"
                  style={{ width: 160 }}
                  value={shown}
                  onChange={(e) => setFigure(e.target.value)}
                >
                  {figures(data).map((f) => (
                    <option key={f}>{f}</option>
                  ))}
                </select>
                <span className="spacer" />
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => downloadPng(curvesChart.current, `curves-${shown}.png`)}
                >
                  PNG
                </button>
              </div>
              <div data-testid="compare-curves" data-series={overlay.series.length}>
                <EChart
                  ref={curvesChart}
                  label={`${shown} per epoch for each run`}
                  option={overlay}
                  height={300}
                />
              </div>
            </div>
            <div className="card">
              <div className="page-head">
                <span className="spacer" />
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => downloadPng(barsChart.current, 'before-after.png')}
                >
                  PNG
                </button>
              </div>
              <div
                data-testid="compare-bars"
                data-bars={data.runs.filter((r) => r.before || r.after).length}
              >
                <EChart
                  ref={barsChart}
                  label="Reward before and after training for each run"
                  option={bars}
                  height={300}
                />
              </div>
            </div>
          </div>
          <div className="card" aria-label="Is the change real?">
            <h2>Is the change real?</h2>
            {data.runs.map((r) => (
              <div key={r.id}>
                {r.gain ? (
                  <GainVerdict comparison={r.gain} title={`${runLabel(r)} after vs before`} />
                ) : (
                  <p className="note">
                    {runLabel(r)}: no per-row rewards before and after training yet.
                  </p>
                )}
                {r.versus && data.runs[0] && (
                  <VersusVerdict
                    versus={r.versus}
                    title={`${runLabel(r)} vs ${runLabel(data.runs[0])} after training`}
                  />
                )}
              </div>
            ))}
          </div>
          <div className="card">
            <div className="page-head">
              <h2 style={{ margin: 0 }}>Per example (last evaluation after training)</h2>
              <span className="spacer" />
              <label htmlFor="compare-filter" className="note">
                Show
              </label>
              <select
                id="compare-filter"
                className="select"
                style={{ width: 'auto' }}
                value={filter}
                disabled={!rowsIn}
                onChange={(e) => setFilter(e.target.value as ExampleFilter)}
              >
                <option value="all">all examples</option>
                <option value="better">got better (vs {changeBaseline(data)})</option>
                <option value="worse">got worse (vs {changeBaseline(data)})</option>
              </select>
              <button
                type="button"
                className="btn btn-small"
                disabled={!rowsIn}
                onClick={() => downloadText('examples.csv', examplesCsv(data, rows), 'text/csv')}
              >
                CSV
              </button>
            </div>
            {examples.error ? (
              <div className="alert">{examples.error.message}</div>
            ) : !rowsIn ? (
              <p className="note" role="status" aria-label="Test rows loading">
                Loading the test rows: loaded {count(examples.loaded)} of {count(examples.total)}{' '}
                rows…
              </p>
            ) : (
              <div className="table-scroll">
                <table className="table" aria-label="Per-example results">
                  <thead>
                    <tr>
                      <th>
                        <button type="button" onClick={() => sortBy('input')}>
                          Input{sort.by === 'input' ? (sort.desc ? ' ▾' : ' ▴') : ''}
                        </button>
                      </th>
                      <th>Expected</th>
                      {data.runs.map((r) => (
                        <th key={r.id}>
                          <button type="button" onClick={() => sortBy(r.id)}>
                            {runLabel(r)}
                            {sort.by === r.id ? (sort.desc ? ' ▾' : ' ▴') : ''}
                          </button>
                        </th>
                      ))}
                      <th>Traces</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((row, index) => (
                      <Fragment key={row.key}>
                        <tr className={row.worse ? 'bad' : ''}>
                          <td className="mono">{cell(row.input)}</td>
                          <td className="mono">{cell(row.expected)}</td>
                          {data.runs.map((r) => {
                            const result = row.results[r.id];
                            return (
                              <td key={r.id} className="mono">
                                {result ? (
                                  <>
                                    <b>{result.reward.toFixed(2)}</b>
                                    {result.before !== null && result.before !== result.after && (
                                      <span className="note">
                                        {' '}
                                        (before: {result.before.toFixed(2)})
                                      </span>
                                    )}{' '}
                                    {cell(result.output)}
                                    {feedback && (result.feedback || result.beforeFeedback) && (
                                      <div className="note">
                                        {result.feedback && <div>feedback: {result.feedback}</div>}
                                        {result.beforeFeedback &&
                                          result.beforeFeedback !== result.feedback && (
                                            <div>feedback before: {result.beforeFeedback}</div>
                                          )}
                                      </div>
                                    )}
                                  </>
                                ) : (
                                  '—'
                                )}
                              </td>
                            );
                          })}
                          <td>
                            <button
                              type="button"
                              className="btn btn-small"
                              aria-label={`Traces of row ${index + 1}`}
                              aria-expanded={traced.has(row.key)}
                              onClick={() => toggleTrace(row.key)}
                            >
                              {traced.has(row.key) ? 'Hide' : 'Traces'}
                            </button>
                          </td>
                        </tr>
                        {traced.has(row.key) && (
                          <tr>
                            <td colSpan={data.runs.length + 3}>
                              {data.runs.map((r) => (
                                <div key={r.id}>
                                  <h4>{runLabel(r)}</h4>
                                  {row.results[r.id] ? (
                                    <TraceSteps
                                      trace={row.results[r.id]?.trace}
                                      label={`Trace of ${runLabel(r)} on row ${index + 1}`}
                                    />
                                  ) : (
                                    <p className="note">This run did not store this row.</p>
                                  )}
                                </div>
                              ))}
                            </td>
                          </tr>
                        )}
                      </Fragment>
                    ))}
                  </tbody>
                </table>
                {rows.length === 0 && (
                  <p className="note">
                    {filter === 'all'
                      ? 'No example yet (runs store them after training).'
                      : `No example got ${filter} (vs ${changeBaseline(data)}).`}
                  </p>
                )}
              </div>
            )}
          </div>
          <div className="card">
            <h2>Trained instructions and examples</h2>
            <VariableDiff data={data} />
          </div>
        </>
      )}
    </section>
  );
}
