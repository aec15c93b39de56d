import type { CompareData } from '../model/compareData';
import { runLabel } from '../model/compareData';

const show = (value: unknown) =>
  value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value, null, 2);

/** Trained instructions and examples of each run, side by side; changed fields marked. */
export function VariableDiff({ data }: { data: CompareData }) {
  const entries = Object.entries(data.variables);
  if (entries.length === 0) return <p className="note">No trained variables yet.</p>;
  return (
    <>
      {entries.map(([name, variable]) => {
        const fields = [
          ...new Set(Object.values(variable.values).flatMap((v) => Object.keys(v))),
        ].sort();
        return (
          <div key={name} style={{ marginBottom: 12 }}>
            <h3 className="mono">{name}</h3>
            <table className="table" aria-label={`Trained ${name}`}>
              <thead>
                <tr>
                  <th>Field</th>
                  {data.runs.map((r) => (
                    <th key={r.id}>{runLabel(r)}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {fields.map((field) => {
                  const changed = variable.changed_fields.includes(field);
                  return (
                    <tr key={field}>
                      <td className="mono">
                        {field}
                        {changed ? ' ≠' : ''}
                      </td>
                      {data.runs.map((r) => (
                        <td key={r.id}>
                          <pre className={`block ${changed ? 'diff-new' : ''}`}>
                            {show(variable.values[String(r.id)]?.[field])}
                          </pre>
                        </td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        );
      })}
    </>
  );
}
