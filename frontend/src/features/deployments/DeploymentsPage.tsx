import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { FormField } from '@/lib/components/FormField';
import { useCreateDeployment } from './api/deploymentsCreate';
import { useDeployments } from './api/deploymentsList';
import type { TargetChoice } from './api/types';
import { TargetPicker } from './components/TargetPicker';
import { targetLabel } from './components/targetLabel';

const SLUG = /^[-a-zA-Z0-9_]+$/;

/** Deploy form: a name and what to serve; `?run=<id>` (the run page's Deploy) preselects. */
function NewDeployment() {
  const [params] = useSearchParams();
  const fromRun = Number(params.get('run'));
  const [name, setName] = useState(fromRun ? `run-${fromRun}` : '');
  const [target, setTarget] = useState<TargetChoice | null>(fromRun ? { run: fromRun } : null);
  const create = useCreateDeployment();
  const navigate = useNavigate();
  const problems = create.error instanceof ApiError ? create.error.problems : [];
  const errorAt = (path: string) => problems.find((p) => p.path === path)?.message;
  const nameError = name && !SLUG.test(name) ? 'letters, digits, - and _ only' : errorAt('name');
  const general = problems.filter((p) => !['name', 'run', 'program_version'].includes(p.path));
  return (
    <form
      className="card"
      aria-label="New deployment"
      onSubmit={(e) => {
        e.preventDefault();
        if (!target || !SLUG.test(name)) return;
        create.mutate(
          { name, target },
          { onSuccess: (d) => navigate(`/deployments/${encodeURIComponent(d.name)}`) },
        );
      }}
    >
      <h2>New deployment</h2>
      <FormField
        label="Name"
        error={nameError}
        hint="Part of the URL scripts call; unique among your deployments."
      >
        {(control) => (
          <input
            {...control}
            className="input"
            value={name}
            maxLength={50}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </FormField>
      <TargetPicker
        id="new"
        value={target}
        onChange={setTarget}
        errors={{ run: errorAt('run'), program_version: errorAt('program_version') }}
      />
      <button
        type="submit"
        className="btn btn-primary"
        disabled={!target || !SLUG.test(name) || create.isPending}
      >
        Deploy
      </button>
      {(general.length > 0 || (create.isError && !problems.length)) && (
        <div className="alert" role="alert">
          {general.map((p) => p.message).join('; ') || create.error?.message}
        </div>
      )}
    </form>
  );
}

/** Deployments (route /deployments): what is served under which name, and its usage. */
export default function DeploymentsPage() {
  const deployments = useDeployments();
  return (
    <section className="page">
      <div className="page-head">
        <h1>Deployments</h1>
      </div>
      <NewDeployment />
      <div className="card">
        {deployments.isError && <div className="alert">{deployments.error.message}</div>}
        <table className="table" aria-label="Deployments">
          <thead>
            <tr>
              <th>Name</th>
              <th>Serving</th>
              <th className="num">Predictions</th>
              <th className="num">Cost</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {(deployments.data ?? []).map((d) => (
              <tr key={d.id}>
                <td>
                  <Link to={`/deployments/${encodeURIComponent(d.name)}`}>{d.name}</Link>
                </td>
                <td>{targetLabel(d.target)}</td>
                <td className="num">{d.usage.predictions}</td>
                <td className="num">${d.usage.cost.toFixed(4)}</td>
                <td>{new Date(d.updated_at).toLocaleString()}</td>
              </tr>
            ))}
            {deployments.data?.length === 0 && (
              <tr>
                <td colSpan={5} className="note">
                  Nothing deployed yet: deploy a succeeded run (or a program version) above.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
