import { Fragment, useState } from 'react';
import { useRunExamples, type RunExample } from '@/lib/api/ops/runsExamples';
import { TraceSteps } from '@/lib/components/TraceSteps';

const cell = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const reward = (v: number | null | undefined) => (typeof v === 'number' ? v.toFixed(2) : '—');
const said = (v: string | null | undefined) => v || '—';

/**
 * The run's test rows after training, each with its reward before and after: the first
 * page, then the next ones on "More" (GET /api/runs/{id}/examples/; the run's row carries
 * figures only). Read once the run has stopped: it stores them at the end. Each row's
 * "Trace" button opens, under it, what each module got and said on that row. When the
 * reward said something of some row (its feedback: the fields that differ, a judge's
 * critique), each reward has the feedback beside it.
 */
export function ExamplesTable({ runId, finished }: { runId: number; finished: boolean }) {
  const examples = useRunExamples(runId, finished);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (index: number) =>
    setOpen((was) => {
      const now = new Set(was);
      if (now.has(index)) now.delete(index);
      else now.add(index);
      return now;
    });
  if (!finished) return <p className="note">The test rows come when the run ends.</p>;
  if (examples.isError) return <p className="note">{examples.error.message}</p>;
  if (!examples.data) return <p className="note">Loading the test rows…</p>;
  const rows = examples.data.pages.flatMap((page) => page.results as RunExample[]);
  const count = examples.data.pages[0]?.count ?? 0;
  if (count === 0) return <p className="note">This run stored no test rows.</p>;
  const feedback = rows.some((row) => row.feedback || row.before_feedback);
  const columns = feedback ? 9 : 7;
  return (
    <>
      <div className="table-scroll">
        <table className="table" aria-label="Test rows">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Input</th>
              <th>Expected</th>
              <th>Output</th>
              <th className="num">Before</th>
              {feedback && <th>Feedback before</th>}
              <th className="num">After</th>
              {feedback && <th>Feedback after</th>}
              <th>Trace</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const label = `Trace of row ${index + 1}`;
              const id = `trace-row-${index + 1}`;
              return (
                <Fragment key={index}>
                  <tr>
                    <td className="num">{index + 1}</td>
                    <td className="mono">{cell(row.input)}</td>
                    <td className="mono">{cell(row.expected)}</td>
                    <td className="mono">{row.error ? row.error : cell(row.output)}</td>
                    <td className="num">{reward(row.before_reward)}</td>
                    {feedback && <td>{said(row.before_feedback)}</td>}
                    <td className="num">{reward(row.after_reward ?? row.reward)}</td>
                    {feedback && <td>{said(row.feedback)}</td>}
                    <td>
                      <button
                        type="button"
                        className="btn btn-small"
                        aria-label={label}
                        aria-expanded={open.has(index)}
                        aria-controls={open.has(index) ? id : undefined}
                        onClick={() => toggle(index)}
                      >
                        {open.has(index) ? 'Hide' : 'Trace'}
                      </button>
                    </td>
                  </tr>
                  {open.has(index) && (
                    <tr>
                      <td colSpan={columns}>
                        <TraceSteps trace={row.trace} label={label} id={id} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="page-head">
        <span className="note">
          {rows.length} of {count} rows
        </span>
        {examples.hasNextPage && (
          <button
            type="button"
            className="btn btn-small"
            disabled={examples.isFetchingNextPage}
            onClick={() => void examples.fetchNextPage()}
          >
            More
          </button>
        )}
      </div>
    </>
  );
}
