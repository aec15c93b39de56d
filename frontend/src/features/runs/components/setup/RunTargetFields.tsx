import type { DatasetVersion } from '@/lib/api/ops/datasetsVersionsList';
import type { Program, ProgramVersionSummary } from '@/lib/api/types';
import { FormField } from '@/lib/components/FormField';
import type { ResolvedTarget, RunTarget } from '../../model/runSetup';
import { ProviderPicker } from './ProviderPicker';

/**
 * What to train: the run's name, the program version, the dataset and its version (the
 * newest until one is picked), and the provider.
 */
export function RunTargetFields({
  target,
  resolved,
  programs,
  versions,
  datasetVersions,
  datasetVersion,
  onChange,
}: {
  target: RunTarget;
  resolved: ResolvedTarget;
  programs: Program[];
  versions: ProgramVersionSummary[];
  /** The picked dataset's versions, newest first. */
  datasetVersions: DatasetVersion[];
  datasetVersion: DatasetVersion | null;
  onChange: (patch: Partial<RunTarget>) => void;
}) {
  return (
    <>
      <FormField label="Run name" id="run-name">
        {(control) => (
          <input
            {...control}
            className="input"
            placeholder="optional"
            value={target.name}
            onChange={(e) => onChange({ name: e.target.value })}
          />
        )}
      </FormField>
      <FormField label="Program" id="run-program">
        {(control) => (
          <select
            {...control}
            className="select"
            value={resolved.programId ?? ''}
            onChange={(e) =>
              // Another program: its newest version, until one is picked.
              onChange({ programId: Number(e.target.value), versionNumber: null })
            }
          >
            {programs.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField label="Version" id="run-version">
        {(control) => (
          <select
            {...control}
            className="select"
            value={resolved.versionNumber ?? ''}
            onChange={(e) => onChange({ versionNumber: Number(e.target.value) })}
          >
            {versions.map((v) => (
              <option key={v.id} value={v.number}>
                v{v.number}
                {v.message ? ` — ${v.message}` : ''}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField
        label="Dataset"
        id="run-dataset"
        error={
          resolved.datasets.length === 0 ? 'No valid dataset yet: upload one first.' : undefined
        }
      >
        {(control) => (
          <select
            {...control}
            className="select"
            value={resolved.dataset?.id ?? ''}
            // Another dataset: its newest version, until one is picked.
            onChange={(e) => onChange({ datasetId: Number(e.target.value), datasetVersion: null })}
          >
            {resolved.datasets.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} ({d.latest_row_count} rows)
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField label="Dataset version" id="run-dataset-version">
        {(control) => (
          <select
            {...control}
            className="select"
            value={datasetVersion?.number ?? ''}
            onChange={(e) => onChange({ datasetVersion: Number(e.target.value) })}
          >
            {datasetVersions.map((v) => (
              <option key={v.number} value={v.number}>
                v{v.number}
                {v.message ? ` — ${v.message}` : ''} ({v.row_count} rows)
              </option>
            ))}
          </select>
        )}
      </FormField>
      <ProviderPicker
        providers={resolved.providers}
        value={resolved.providerId}
        onChange={(providerId) => onChange({ providerId })}
      />
    </>
  );
}
