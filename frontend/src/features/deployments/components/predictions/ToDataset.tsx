import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { useDatasets } from '@/lib/api/ops/datasetsList';
import { FormField } from '@/lib/components/FormField';
import { usePredictionsToDataset } from '../../api/deploymentsPredictionsToDataset';
import type { PredictionFilters, ToDatasetRequest } from '../../api/types';

const SKIPPED: Record<string, string> = {
  wrong_without_correction: 'wrong without a correction',
  unreviewed: 'not reviewed',
  failed: 'failed without a correction',
  already_in_dataset: 'already in the dataset',
};

type Props = { name: string; selected: number[]; filters: PredictionFilters };

/** Reviewed predictions (the rows ticked, or every reviewed one of the filter) into a dataset. */
export function ToDataset({ name, selected, filters }: Props) {
  const datasets = useDatasets();
  const [dataset, setDataset] = useState('');
  const [scope, setScope] = useState<'selected' | 'reviewed'>('reviewed');
  const [split, setSplit] = useState<ToDatasetRequest['split']>('auto');
  const [message, setMessage] = useState('');
  const add = usePredictionsToDataset(name);
  const problems = add.error instanceof ApiError ? add.error.problems : [];
  const errorAt = (path: string) =>
    problems
      .filter((p) => p.path === path || p.path.startsWith(`${path}[`))
      .map((p) => p.message)
      .join('; ') || undefined;
  const other = problems.filter(
    (p) =>
      !['dataset', 'split', 'message', 'reviewed'].includes(p.path) && !p.path.startsWith('ids'),
  );
  const valid = (datasets.data ?? []).filter((d) => d.status === 'valid');
  const { verdict, ...rest } = filters;
  const body = (): ToDatasetRequest => ({
    dataset: Number(dataset),
    split,
    message,
    ...(scope === 'selected'
      ? { ids: selected }
      : { reviewed: true, ...rest, ...(verdict && verdict !== 'none' ? { verdict } : {}) }),
  });
  // "Not reviewed" filters out every row this would add: say so rather than widen it.
  const nothingReviewed = scope === 'reviewed' && verdict === 'none';
  const result = add.data;
  return (
    <form
      className="card"
      aria-label="Add to dataset"
      onSubmit={(e) => {
        e.preventDefault();
        if (dataset) add.mutate(body());
      }}
    >
      <h2>Add to dataset</h2>
      <p className="note">
        Each prediction becomes a row: its input, and its correction, else its output where it was
        marked right. Wrong ones without a correction are left out.
      </p>
      <fieldset style={{ border: 0, padding: 0 }}>
        <legend>Which predictions</legend>
        <label>
          <input
            type="radio"
            name="to-dataset-scope"
            checked={scope === 'reviewed'}
            onChange={() => setScope('reviewed')}
          />{' '}
          All reviewed ones of the filter
        </label>{' '}
        <label>
          <input
            type="radio"
            name="to-dataset-scope"
            checked={scope === 'selected'}
            onChange={() => setScope('selected')}
          />{' '}
          The {selected.length} selected
        </label>
      </fieldset>
      {nothingReviewed && (
        <div className="field-error">
          The filter shows only predictions not reviewed: none of them can be added.
        </div>
      )}
      {(errorAt('ids') || errorAt('reviewed')) && (
        <div className="field-error">{errorAt('ids') ?? errorAt('reviewed')}</div>
      )}
      <FormField label="Dataset" id="to-dataset-dataset" error={errorAt('dataset')}>
        {(control) => (
          <select
            {...control}
            className="input"
            value={dataset}
            onChange={(e) => setDataset(e.target.value)}
          >
            <option value="">Choose a dataset…</option>
            {valid.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} ({d.row_count} rows)
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField label="Split" id="to-dataset-split" error={errorAt('split')}>
        {(control) => (
          <select
            {...control}
            className="input"
            value={split}
            onChange={(e) => setSplit(e.target.value as ToDatasetRequest['split'])}
          >
            <option value="auto">The dataset&apos;s split rule</option>
            <option value="train">Train</option>
            <option value="test">Test</option>
          </select>
        )}
      </FormField>
      <FormField label="Message" id="to-dataset-message" error={errorAt('message')}>
        {(control) => (
          <input
            {...control}
            className="input"
            value={message}
            maxLength={500}
            onChange={(e) => setMessage(e.target.value)}
          />
        )}
      </FormField>
      <button
        type="submit"
        className="btn btn-primary"
        disabled={
          !dataset ||
          add.isPending ||
          nothingReviewed ||
          (scope === 'selected' && selected.length === 0)
        }
      >
        Add
      </button>
      {other.length > 0 && (
        <div className="alert" role="alert">
          {other.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ')}
        </div>
      )}
      {result && (
        <div className="alert alert-success" role="status" data-testid="to-dataset-result">
          Version {result.version.number} of {result.dataset_name}: {result.version.row_count} rows
          ({result.added} added
          {Object.entries(result.skipped)
            .map(([why, count]) => `, ${count} ${SKIPPED[why] ?? why} left out`)
            .join('')}
          ), digest {result.version.digest?.slice(0, 12) ?? '…'}.{' '}
          <Link to="/datasets">Open the datasets</Link>
        </div>
      )}
    </form>
  );
}
