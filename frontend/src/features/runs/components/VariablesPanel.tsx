import { useState } from 'react';
import { FormField } from '@/lib/components/FormField';
import { variableChanges, type RunView } from '../model/runView';

const show = (value: unknown) =>
  typeof value === 'string' ? value : JSON.stringify(value, null, 2);

/** The trainable variables after an epoch, and what changed since the epoch before. */
export function VariablesPanel({ view }: { view: RunView }) {
  const epochs = [...view.variables.keys()].sort((a, b) => a - b);
  const [picked, setPicked] = useState<number | null>(null);
  const epoch = picked ?? epochs[epochs.length - 1] ?? null;
  if (epoch === null)
    return <p className="note">Trainable variables appear after the first epoch.</p>;
  const changes = variableChanges(view, epoch);
  const current = view.variables.get(epoch) ?? {};
  return (
    <div>
      <FormField label="After epoch" id="variables-epoch">
        {(control) => (
          <select
            {...control}
            className="select"
            value={epoch}
            onChange={(e) => setPicked(Number(e.target.value))}
          >
            {epochs.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <h3>Changed since the previous epoch ({changes.length})</h3>
      {changes.length === 0 ? (
        <p className="note">Nothing changed.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Variable</th>
              <th>Field</th>
              <th>Before</th>
              <th>After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={`${c.variable}.${c.field}`}>
                <td className="mono">{c.variable}</td>
                <td className="mono">{c.field}</td>
                <td>
                  <pre className="block diff-old">{show(c.before)}</pre>
                </td>
                <td>
                  <pre className="block diff-new">{show(c.after)}</pre>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Current values</h3>
      {Object.entries(current).map(([name, fields]) => (
        <details key={name}>
          <summary className="mono">{name}</summary>
          <pre className="block">{show(fields)}</pre>
        </details>
      ))}
    </div>
  );
}
