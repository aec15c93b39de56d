import { useState } from 'react';
import { usePrograms } from '@/lib/api/ops/programsList';
import { useVersions } from '@/lib/api/ops/programsVersionsList';
import { useRuns } from '@/lib/api/ops/runsList';
import { FormField } from '@/lib/components/FormField';
import type { TargetChoice } from '../api/types';

type Props = {
  /** Prefix of the controls' ids (two pickers may share a page). */
  id: string;
  value: TargetChoice | null;
  onChange: (target: TargetChoice | null) => void;
  /** The server's messages for `run` / `program_version`. */
  errors?: { run?: string; program_version?: string };
};

/**
 * Pick what a deployment serves: a succeeded run (its trained program, called with the
 * run's provider) or a saved program version (called with the default provider).
 */
export function TargetPicker({ id, value, onChange, errors = {} }: Props) {
  const [kind, setKind] = useState<'run' | 'version'>(
    value && 'program_version' in value ? 'version' : 'run',
  );
  const [programId, setProgramId] = useState<number | null>(null);
  const runs = useRuns();
  const programs = usePrograms();
  const versions = useVersions(kind === 'version' ? programId : null);
  const succeeded = (runs.data ?? []).filter((run) => run.state === 'succeeded');
  const choose = (next: 'run' | 'version') => {
    setKind(next);
    onChange(null);
  };
  return (
    <>
      <FormField label="Serve" group>
        {() => (
          <div role="radiogroup" aria-label="Serve" style={{ display: 'flex', gap: 14 }}>
            <label>
              <input
                type="radio"
                name={`${id}-kind`}
                checked={kind === 'run'}
                onChange={() => choose('run')}
              />{' '}
              a trained run
            </label>
            <label>
              <input
                type="radio"
                name={`${id}-kind`}
                checked={kind === 'version'}
                onChange={() => choose('version')}
              />{' '}
              a program version
            </label>
          </div>
        )}
      </FormField>
      {kind === 'run' ? (
        <FormField
          label="Run"
          id={`${id}-run`}
          error={errors.run}
          hint="Its trained program, called with the run's provider."
        >
          {(control) => (
            <select
              {...control}
              className="select"
              value={value && 'run' in value ? value.run : ''}
              onChange={(e) => onChange(e.target.value ? { run: Number(e.target.value) } : null)}
            >
              <option value="">{runs.isLoading ? 'Loading…' : 'Choose a succeeded run'}</option>
              {succeeded.map((run) => (
                <option key={run.id} value={run.id}>
                  #{run.id}
                  {run.name ? ` ${run.name}` : ''}
                </option>
              ))}
            </select>
          )}
        </FormField>
      ) : (
        <>
          <FormField label="Program" id={`${id}-program`}>
            {(control) => (
              <select
                {...control}
                className="select"
                value={programId ?? ''}
                onChange={(e) => {
                  setProgramId(e.target.value ? Number(e.target.value) : null);
                  onChange(null);
                }}
              >
                <option value="">Choose a program</option>
                {(programs.data ?? []).map((program) => (
                  <option key={program.id} value={program.id}>
                    {program.name}
                  </option>
                ))}
              </select>
            )}
          </FormField>
          <FormField
            label="Version"
            id={`${id}-version`}
            error={errors.program_version}
            hint="Called with your default language provider."
          >
            {(control) => (
              <select
                {...control}
                className="select"
                disabled={programId === null}
                value={value && 'program_version' in value ? value.program_version : ''}
                onChange={(e) =>
                  onChange(e.target.value ? { program_version: Number(e.target.value) } : null)
                }
              >
                <option value="">Choose a version</option>
                {(versions.data ?? []).map((version) => (
                  <option key={version.id} value={version.id}>
                    v{version.number}
                    {version.message ? ` — ${version.message}` : ''}
                  </option>
                ))}
              </select>
            )}
          </FormField>
        </>
      )}
    </>
  );
}
