import type { MappedRow } from '../model/uploadPreview';

function cell(value: unknown): string {
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

/**
 * The first rows of the chosen file as the mapping reads them, before the upload: each
 * row's input and output objects, the fields it leaves empty, and rows that cannot be read.
 */
export function UploadPreview({ rows, complete }: { rows: MappedRow[]; complete: boolean }) {
  if (rows.length === 0)
    return <p className="note">No rows could be read from the start of this file.</p>;
  return (
    <>
      <h3>Preview, as mapped</h3>
      <p className="note">
        The first {rows.length} row{rows.length === 1 ? '' : 's'}
        {complete ? '' : ' (read from the start of the file)'}, read here in the browser; the server
        checks every row after the upload.
      </p>
      <div className="table-scroll">
        <table className="table mono" aria-label="Preview of the mapped rows">
          <thead>
            <tr>
              <th className="num">Line</th>
              <th>Input</th>
              <th>Output</th>
              <th>Problems</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.line} className={row.error || row.missing.length ? 'bad' : ''}>
                <td className="num">{row.line}</td>
                <td>{row.error ? <span className="note">{row.raw}</span> : cell(row.input)}</td>
                <td>{cell(row.output)}</td>
                <td>
                  {row.error ??
                    (row.missing.length > 0 ? `no value for ${row.missing.join(', ')}` : '')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
