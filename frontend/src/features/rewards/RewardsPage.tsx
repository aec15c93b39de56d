import { useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { usePageParam } from '@/lib/api/pagination';
import { FormField } from '@/lib/components/FormField';
import { Pager } from '@/lib/components/Pager';
import {
  useCreateScorer,
  useImportScorer,
  useScorersPage,
  useScorerTemplates,
  type ScorerKind,
} from '@/lib/api/ops/scorers';

/**
 * The user's code rewards and metrics (route /rewards): Python they wrote, run in the
 * server's sandbox. Start one from a template, import an exported one, open one to edit.
 */
export default function RewardsPage() {
  const [page, setPage] = usePageParam();
  const scorers = useScorersPage(page);
  const templates = useScorerTemplates();
  const creating = useCreateScorer();
  const importing = useImportScorer();
  const navigate = useNavigate();
  const fileInput = useRef<HTMLInputElement>(null);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ScorerKind>('reward');
  const template = templates.data?.find((t) => t.kind === kind)?.source;
  const problems = creating.error instanceof ApiError ? creating.error.problems : [];
  const nameError = problems.find((p) => p.path === 'name')?.message;
  const other = problems.filter((p) => p.path !== 'name');
  return (
    <section className="page">
      <div className="page-head">
        <h1>Rewards</h1>
        <span className="spacer" />
        <button type="button" className="btn" onClick={() => fileInput.current?.click()}>
          Import…
        </button>
        <input
          ref={fileInput}
          type="file"
          accept="application/json,.json"
          className="visually-hidden"
          tabIndex={-1}
          aria-label="Reward file to import"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file)
              importing.mutate(file, { onSuccess: (made) => navigate(`/rewards/${made.id}`) });
          }}
        />
      </div>
      <p className="note">
        Your own rewards and metrics, in Python: <code>def reward(y_true, y_pred)</code> returns a
        score in [0, 1], or a score and feedback the optimizer reads. They run in a sandbox with no
        network, files or environment.
      </p>
      {importing.isError && (
        <div className="alert" role="alert">
          Import failed: {importing.error.message}
        </div>
      )}
      <form
        className="card"
        aria-label="New reward"
        onSubmit={(e) => {
          e.preventDefault();
          if (!name.trim() || !template) return;
          creating.mutate(
            { name: name.trim(), kind, source: template, message: 'from the template' },
            { onSuccess: (made) => navigate(`/rewards/${made.id}`) },
          );
        }}
      >
        <h2>New</h2>
        <div className="grid-2">
          <FormField label="Name" error={nameError}>
            {(control) => (
              <input
                {...control}
                className="input"
                value={name}
                onChange={(e) => setName(e.target.value)}
              />
            )}
          </FormField>
          <FormField label="Kind" hint="a reward scores in [0, 1]; a metric any number">
            {(control) => (
              <select
                {...control}
                className="select"
                value={kind}
                onChange={(e) => setKind(e.target.value as ScorerKind)}
              >
                <option value="reward">Reward</option>
                <option value="metric">Metric</option>
              </select>
            )}
          </FormField>
        </div>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!name.trim() || !template || creating.isPending}
        >
          Create from the template
        </button>
        {other.length > 0 && (
          <div className="alert" role="alert">
            {other.map((p) => p.message).join('; ')}
          </div>
        )}
      </form>
      {scorers.isError && <div className="alert">{scorers.error.message}</div>}
      <div className="card">
        {scorers.isPending ? (
          <p className="note">Loading…</p>
        ) : scorers.data?.results.length ? (
          <table className="table" aria-label="Rewards">
            <thead>
              <tr>
                <th>Name</th>
                <th>Kind</th>
                <th>Description</th>
                <th className="num">Versions</th>
                <th className="num">Runs</th>
                <th>Updated</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {scorers.data.results.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link to={`/rewards/${s.id}`}>{s.name}</Link>
                  </td>
                  <td>{s.kind}</td>
                  <td>{s.description || '—'}</td>
                  <td className="num">{s.version_count}</td>
                  <td className="num">{s.run_count}</td>
                  <td>{new Date(s.updated_at).toLocaleString()}</td>
                  <td>
                    <a className="btn btn-small" href={`/api/scorers/${s.id}/export/`} download>
                      Export
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="note">No code reward yet: create one from the template, or import one.</p>
        )}
        <Pager page={page} data={scorers.data} onPage={setPage} label="Rewards" />
      </div>
    </section>
  );
}
