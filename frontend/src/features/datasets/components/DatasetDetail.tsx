import { useDataset } from '../api/datasetsRetrieve';
import { usePreview } from '../api/datasetsPreview';
import { VersionsPanel } from './VersionsPanel';

function cell(value: unknown): string {
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

/** A dataset's status, its row errors (line, field, message) and a preview of its rows. */
export function DatasetDetail({ datasetId }: { datasetId: number }) {
  const dataset = useDataset(datasetId);
  const done = dataset.data?.status === 'valid' || dataset.data?.status === 'invalid';
  const preview = usePreview(datasetId, done);
  if (dataset.isPending) return <div className="card note">Loading…</div>;
  if (dataset.isError) return <div className="alert">{dataset.error.message}</div>;
  const d = dataset.data;
  return (
    <section className="card" aria-label={`Dataset ${d.name}`}>
      <div className="page-head">
        <h2 style={{ margin: 0 }}>{d.name}</h2>
        <span className={`badge badge-${d.status}`} data-testid="dataset-status">
          {d.status}
        </span>
        <span className="note">
          {d.row_count} rows · {d.error_count} errors · {d.format}
          {d.builtin_name ? ` · built-in ${d.builtin_name}` : ''}
        </span>
      </div>
      {!done && <p className="note">The worker is validating every row…</p>}
      {d.dropped_count > 0 && (
        <p className="note" data-testid="dataset-dropped">
          {d.dropped_count} row{d.dropped_count === 1 ? '' : 's'} dropped (line
          {d.dropped_lines.length === 1 ? '' : 's'} {d.dropped_lines.slice(0, 20).join(', ')}
          {d.dropped_lines.length > 20 || d.dropped_count > d.dropped_lines.length ? ', …' : ''}):
          they do not fit the models. Training uses the {d.row_count} others.
        </p>
      )}
      {d.errors.length > 0 && (
        <>
          <h3>
            Row errors{d.errors_truncated ? ` (first ${d.errors.length} of ${d.error_count})` : ''}
          </h3>
          <p className="note">
            {d.dropped_count > 0
              ? 'Why these rows were dropped; fix them in your file and upload it again to use them.'
              : 'Fix these rows in your file and upload it again.'}
          </p>
          <div className="table-scroll">
            <table className="table" aria-label="Row errors">
              <thead>
                <tr>
                  <th className="num">Line</th>
                  <th>Field</th>
                  <th>Message</th>
                  <th>Row as written</th>
                </tr>
              </thead>
              <tbody>
                {d.errors.map((e, i) => (
                  <tr key={`${e.line}-${e.field}-${i}`} className="bad">
                    <td className="num">{e.line}</td>
                    <td className="mono">{e.field || '—'}</td>
                    <td>{e.message}</td>
                    <td
                      className="mono"
                      style={{ maxWidth: 320, overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}
                    >
                      {e.raw ?? ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {d.status === 'valid' && <VersionsPanel datasetId={d.id} />}
      {d.status !== 'valid' && preview.data && preview.data.length > 0 && (
        <>
          <h3>Preview</h3>
          <div className="table-scroll">
            <table className="table mono" aria-label="Preview">
              <thead>
                <tr>
                  <th className="num">Line</th>
                  <th>Input</th>
                  <th>Output</th>
                </tr>
              </thead>
              <tbody>
                {preview.data.map((row) => (
                  <tr key={row.line} className={row.errors.length ? 'bad' : ''}>
                    <td className="num">{row.line}</td>
                    <td>{cell(row.input)}</td>
                    <td>{cell(row.output)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
