import { useRunExamples, type RunExample } from '@/lib/api/ops/runsExamples';

const cell = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const reward = (v: number | null | undefined) => (typeof v === 'number' ? v.toFixed(2) : '—');

/**
 * The run's test rows after training, each with its reward before and after: the first
 * page, then the next ones on "More" (GET /api/runs/{id}/examples/; the run's row carries
 * figures only). Read once the run has stopped: it stores them at the end.
 */
export function ExamplesTable({ runId, finished }: { runId: number; finished: boolean }) {
  const examples = useRunExamples(runId, finished);
  if (!finished) return <p className="note">The test rows come when the run ends.</p>;
  if (examples.isError) return <p className="note">{examples.error.message}</p>;
  if (!examples.data) return <p className="note">Loading the test rows…</p>;
  const rows = examples.data.pages.flatMap((page) => page.results as RunExample[]);
  const count = examples.data.pages[0]?.count ?? 0;
  if (count === 0) return <p className="note">This run stored no test rows.</p>;
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
              <th className="num">After</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                <td className="num">{index + 1}</td>
                <td className="mono">{cell(row.input)}</td>
                <td className="mono">{cell(row.expected)}</td>
                <td className="mono">{row.error ? row.error : cell(row.output)}</td>
                <td className="num">{reward(row.before_reward)}</td>
                <td className="num">{reward(row.after_reward ?? row.reward)}</td>
              </tr>
            ))}
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
