import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { useDeleteDeployment } from './api/deploymentsDestroy';
import { useDeployment } from './api/deploymentsRetrieve';
import { useRollbackDeployment } from './api/deploymentsRollback';
import { useSwitchDeployment } from './api/deploymentsSwitch';
import type { Deployment, TargetChoice } from './api/types';
import { BatchTab } from './components/BatchTab';
import { HistoryTable } from './components/HistoryTable';
import { InputLimit } from './components/InputLimit';
import { PredictionsTab } from './components/predictions/PredictionsTab';
import { TargetPicker } from './components/TargetPicker';
import { targetLabel } from './components/targetLabel';
import { UsagePanel } from './components/UsagePanel';
import { UseItTab } from './components/UseItTab';

const TABS = [
  { key: 'overview', label: 'Overview' },
  { key: 'use', label: 'Use it' },
  { key: 'batch', label: 'Batch' },
  { key: 'predictions', label: 'Predictions' },
] as const;
type Tab = (typeof TABS)[number]['key'];

/** What is served, the previous target (rollback), and a switch to another run or version. */
function Serving({ deployment }: { deployment: Deployment }) {
  const [target, setTarget] = useState<TargetChoice | null>(null);
  const switcher = useSwitchDeployment(deployment.name);
  const rollback = useRollbackDeployment(deployment.name);
  const problems = switcher.error instanceof ApiError ? switcher.error.problems : [];
  const errorAt = (path: string) => problems.find((p) => p.path === path)?.message;
  const failure = rollback.error ?? (problems.some((p) => p.path) ? null : switcher.error);
  return (
    <div className="grid-2">
      <div className="card">
        <h2>Serving</h2>
        <p data-testid="serving">
          {deployment.target.run !== null ? (
            <Link to={`/runs/${deployment.target.run}`}>{targetLabel(deployment.target)}</Link>
          ) : (
            targetLabel(deployment.target)
          )}
        </p>
        <p className="note">
          Previous: <span data-testid="previous">{targetLabel(deployment.previous)}</span>
        </p>
        <button
          type="button"
          className="btn"
          disabled={!deployment.previous || rollback.isPending}
          onClick={() => rollback.mutate()}
        >
          Roll back
        </button>
        {failure && (
          <div className="alert" role="alert" style={{ marginTop: 8 }}>
            {failure.message}
          </div>
        )}
      </div>
      <form
        className="card"
        aria-label="Switch"
        onSubmit={(e) => {
          e.preventDefault();
          if (target) switcher.mutate(target, { onSuccess: () => setTarget(null) });
        }}
      >
        <h2>Switch</h2>
        <p className="note">
          Callers get the new program from their next request; the current one is kept for a
          rollback.
        </p>
        <TargetPicker
          id="switch"
          value={target}
          onChange={setTarget}
          errors={{ run: errorAt('run'), program_version: errorAt('program_version') }}
        />
        <button type="submit" className="btn btn-primary" disabled={!target || switcher.isPending}>
          Switch
        </button>
      </form>
    </div>
  );
}

/** One deployment (route /deployments/:name): overview, "Use it" snippets, batch prediction. */
export default function DeploymentPage() {
  const { name = '' } = useParams();
  const deployment = useDeployment(name);
  const remove = useDeleteDeployment();
  const navigate = useNavigate();
  const [tab, setTab] = useState<Tab>('overview');
  if (deployment.isError)
    return (
      <section className="page">
        <div className="alert">{deployment.error.message}</div>
        <Link to="/deployments">All deployments</Link>
      </section>
    );
  const data = deployment.data;
  return (
    <section className="page">
      <div className="page-head">
        <h1>{name}</h1>
        {data && <span className="note">serving {targetLabel(data.target)}</span>}
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-danger"
          disabled={!data || remove.isPending}
          onClick={() => {
            if (globalThis.confirm?.(`Delete deployment ${name}? Scripts calling it will get 404.`))
              remove.mutate(name, { onSuccess: () => navigate('/deployments') });
          }}
        >
          Delete
        </button>
      </div>
      <div role="tablist" aria-label="Deployment" className="page-head">
        {TABS.map((t) => (
          <button
            key={t.key}
            type="button"
            role="tab"
            aria-selected={tab === t.key}
            className={`btn ${tab === t.key ? 'btn-primary' : 'btn-ghost'}`}
            onClick={() => setTab(t.key)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {!data ? (
        <p className="note">Loading…</p>
      ) : (
        <div role="tabpanel" aria-label={TABS.find((t) => t.key === tab)?.label}>
          {tab === 'overview' && (
            <div style={{ display: 'flex', flexDirection: 'column', gap: 14 }}>
              <Serving deployment={data} />
              <InputLimit deployment={data} />
              <UsagePanel name={name} />
              <HistoryTable deployment={data} />
            </div>
          )}
          {tab === 'use' && <UseItTab deployment={data} />}
          {tab === 'batch' && <BatchTab name={name} />}
          {tab === 'predictions' && <PredictionsTab deployment={data} />}
        </div>
      )}
    </section>
  );
}
