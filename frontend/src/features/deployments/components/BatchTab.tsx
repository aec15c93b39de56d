import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useDatasets } from '@/lib/api/ops/datasetsList';
import { FormField } from '@/lib/components/FormField';
import { ApiError } from '@/lib/api/errors';
import { useEventStream } from '@/lib/realtime/useEventStream';
import { batchesKey, useBatches } from '../api/deploymentsBatchesList';
import { useCreateBatch, type Split } from '../api/deploymentsBatchesCreate';
import type { BatchJob } from '../api/types';
import { applyBatchEvent, emptyProgress, fraction, isActive } from '../model/batchProgress';

/** One batch job's row: live progress while it runs (websocket), then its downloads. */
function BatchRow({ name, job }: { name: string; job: BatchJob }) {
  const active = isActive(job.state);
  const { view: progress } = useEventStream(
    'batches',
    active ? job.id : null,
    applyBatchEvent,
    emptyProgress,
  );
  const client = useQueryClient();
  const state = active ? (progress.state ?? job.state) : job.state;
  const shown = active && progress.total ? progress : job;
  // Once the live state is final, the row's stored figures (usage, finish time) are too.
  useEffect(() => {
    if (active && progress.state && !isActive(progress.state))
      void client.invalidateQueries({ queryKey: batchesKey(name) });
  }, [active, progress.state, client, name]);
  const done = !isActive(state);
  return (
    <tr>
      <td className="num">#{job.id}</td>
      <td>
        {job.dataset_name} <span className="note">({job.split})</span>
      </td>
      <td>
        <span className={`badge badge-${state}`} data-testid={`batch-state-${job.id}`}>
          {state}
        </span>
      </td>
      <td style={{ minWidth: 200 }}>
        <div
          className="progress"
          role="progressbar"
          aria-label={`Batch ${job.id} progress`}
          aria-valuemin={0}
          aria-valuemax={shown.total}
          aria-valuenow={shown.processed}
        >
          <div style={{ width: `${(fraction(shown) * 100).toFixed(1)}%` }} />
        </div>
        <span className="note">
          {shown.processed} / {shown.total || '…'} rows
          {shown.failures ? `, ${shown.failures} failed` : ''}
        </span>
        {job.error && <div className="field-error">{job.error}</div>}
      </td>
      <td>
        {done && job.state === 'succeeded' ? (
          <>
            <a className="btn btn-small" href={job.csv_url} download>
              CSV
            </a>{' '}
            <a className="btn btn-small" href={job.jsonl_url} download>
              JSONL
            </a>
          </>
        ) : (
          <span className="note">—</span>
        )}
      </td>
    </tr>
  );
}

/** Batch prediction: run the deployment over a dataset in the background, follow, download. */
export function BatchTab({ name }: { name: string }) {
  const datasets = useDatasets();
  const batches = useBatches(name);
  const create = useCreateBatch(name);
  const [dataset, setDataset] = useState('');
  const [split, setSplit] = useState<Split>('all');
  const valid = (datasets.data ?? []).filter((d) => d.status === 'valid');
  const problems = create.error instanceof ApiError ? create.error.problems : [];
  const errorAt = (path: string) => problems.find((p) => p.path === path)?.message;
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 14 }}>
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          if (dataset) create.mutate({ dataset: Number(dataset), split });
        }}
      >
        <h2>New batch prediction</h2>
        <FormField label="Dataset" error={errorAt('dataset')}>
          {(control) => (
            <select
              {...control}
              className="select"
              value={dataset}
              onChange={(e) => setDataset(e.target.value)}
            >
              <option value="">Choose a valid dataset</option>
              {valid.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} ({d.latest_row_count} rows)
                </option>
              ))}
            </select>
          )}
        </FormField>
        <FormField label="Rows" error={errorAt('split')}>
          {(control) => (
            <select
              {...control}
              className="select"
              value={split}
              onChange={(e) => setSplit(e.target.value as Split)}
            >
              <option value="all">all</option>
              <option value="train">train split</option>
              <option value="test">test split</option>
            </select>
          )}
        </FormField>
        <button type="submit" className="btn btn-primary" disabled={!dataset || create.isPending}>
          Start
        </button>
        {create.isError && !problems.some((p) => p.path) && (
          <div className="alert" role="alert">
            {create.error.message}
          </div>
        )}
      </form>
      <div className="card">
        <h2>Batch predictions</h2>
        <table className="table" aria-label="Batch predictions">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Dataset</th>
              <th>State</th>
              <th>Progress</th>
              <th>Results</th>
            </tr>
          </thead>
          <tbody>
            {(batches.data ?? []).map((job) => (
              <BatchRow key={job.id} name={name} job={job} />
            ))}
            {batches.data?.length === 0 && (
              <tr>
                <td colSpan={5} className="note">
                  None yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}
