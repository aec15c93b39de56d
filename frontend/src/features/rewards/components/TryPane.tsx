import { useState } from 'react';
import { ApiError } from '@/lib/api/errors';
import { useDatasets } from '@/lib/api/ops/datasetsList';
import { useDatasetVersions } from '@/lib/api/ops/datasetsVersionsList';
import { FormField } from '@/lib/components/FormField';
import { useTryScorer, type TryResult } from '@/lib/api/ops/scorers';
import { buildTryRequest, EMPTY_TRY, MAX_TRY_ROWS, type TryForm } from '../model/tryForm';

const show = (value: unknown) => JSON.stringify(value);

/**
 * "Try it": score rows of one of the user's datasets with the editor's code (saved or not),
 * in the server's sandbox, and show each row's score, feedback, error and prints.
 */
export function TryPane({
  scorerId,
  source,
  version,
}: {
  scorerId: number;
  /** The editor's text when it differs from the version shown; else undefined. */
  source: string | undefined;
  version: number | null;
}) {
  const [form, setForm] = useState<TryForm>(EMPTY_TRY);
  const datasets = useDatasets();
  const versions = useDatasetVersions(form.dataset);
  const trying = useTryScorer(scorerId);
  const what = source !== undefined ? { source } : version !== null ? { version } : {};
  const built = buildTryRequest(form, what);
  const set = (patch: Partial<TryForm>) => setForm({ ...form, ...patch });
  const valid = (datasets.data ?? []).filter((d) => d.status === 'valid');
  const problems = trying.error instanceof ApiError ? trying.error.problems : [];
  return (
    <section className="card" aria-label="Try it">
      <h2>Try it</h2>
      <p className="note">
        {source !== undefined ? 'Runs the unsaved code' : `Runs version ${version ?? '—'}`} on rows
        of a dataset, in the sandbox. y_true is each row&apos;s output fields.
      </p>
      <div className="grid-2">
        <FormField label="Dataset" error={built.errors.dataset}>
          {(control) => (
            <select
              {...control}
              className="select"
              value={form.dataset ?? ''}
              onChange={(e) =>
                set({
                  dataset: e.target.value ? Number(e.target.value) : null,
                  datasetVersion: null,
                })
              }
            >
              <option value="">Pick a dataset…</option>
              {valid.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          )}
        </FormField>
        <FormField label="Dataset version">
          {(control) => (
            <select
              {...control}
              className="select"
              value={form.datasetVersion ?? ''}
              onChange={(e) =>
                set({ datasetVersion: e.target.value ? Number(e.target.value) : null })
              }
            >
              <option value="">Latest</option>
              {(versions.data ?? []).map((v) => (
                <option key={v.number} value={v.number}>
                  v{v.number}
                </option>
              ))}
            </select>
          )}
        </FormField>
        <FormField
          label="Rows"
          hint="positions from 0, e.g. 0, 3, 5-7; empty: the first N"
          error={built.errors.rows}
        >
          {(control) => (
            <input
              {...control}
              className="input"
              value={form.rows}
              onChange={(e) => set({ rows: e.target.value })}
            />
          )}
        </FormField>
        <FormField label="First N rows" error={built.errors.limit}>
          {(control) => (
            <input
              {...control}
              className="input"
              type="number"
              min={1}
              max={MAX_TRY_ROWS}
              value={form.limit}
              onChange={(e) => set({ limit: Number(e.target.value) })}
            />
          )}
        </FormField>
      </div>
      <FormField label="y_pred">
        {(control) => (
          <select
            {...control}
            className="select"
            value={form.mode}
            onChange={(e) => set({ mode: e.target.value as TryForm['mode'] })}
          >
            <option value="targets">The row&apos;s targets (a perfect answer)</option>
            <option value="fields">Fields of the row</option>
            <option value="json">Typed in (JSON)</option>
          </select>
        )}
      </FormField>
      {form.mode === 'fields' && (
        <FormField
          label="Field mapping"
          hint="one a line: prediction field = row field (output.x, input.x)"
          error={built.errors.fields}
        >
          {(control) => (
            <textarea
              {...control}
              className="input"
              rows={3}
              value={form.fields}
              onChange={(e) => set({ fields: e.target.value })}
            />
          )}
        </FormField>
      )}
      {form.mode === 'json' && (
        <FormField
          label="Prediction JSON"
          hint="one object for every row, or a list with one per row"
          error={built.errors.json}
        >
          {(control) => (
            <textarea
              {...control}
              className="input"
              rows={3}
              value={form.json}
              onChange={(e) => set({ json: e.target.value })}
            />
          )}
        </FormField>
      )}
      <button
        type="button"
        className="btn btn-primary"
        disabled={!built.request || trying.isPending}
        onClick={() => built.request && trying.mutate(built.request)}
      >
        {trying.isPending ? 'Running…' : 'Run on these rows'}
      </button>
      {problems.length > 0 && (
        <div className="alert" role="alert">
          {problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ')}
        </div>
      )}
      {trying.data && <TryResults result={trying.data} />}
    </section>
  );
}

function TryResults({ result }: { result: TryResult }) {
  return (
    <>
      <p className="note" aria-label="Try summary">
        Mean score {result.mean_score === null ? '—' : result.mean_score.toFixed(3)},{' '}
        {result.failed} failed, {result.elapsed_s.toFixed(2)} s
      </p>
      <table className="table" aria-label="Scored rows">
        <thead>
          <tr>
            <th className="num">Row</th>
            <th>y_true</th>
            <th>y_pred</th>
            <th className="num">Score</th>
            <th>Feedback / error</th>
            <th>Printed</th>
          </tr>
        </thead>
        <tbody>
          {result.rows.map((row) => (
            <tr key={row.index}>
              <td className="num">{row.index}</td>
              <td>
                <code>{show(row.y_true)}</code>
              </td>
              <td>
                <code>{show(row.y_pred)}</code>
              </td>
              <td className="num">{row.score}</td>
              <td>
                {row.error ? (
                  <span className="field-error">{row.error}</span>
                ) : (
                  (row.feedback ?? '—')
                )}
              </td>
              <td>{row.output ? <pre>{row.output}</pre> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
