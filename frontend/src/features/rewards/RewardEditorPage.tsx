import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { FormField } from '@/lib/components/FormField';
import {
  useDeleteScorer,
  useSaveVersion,
  useScorer,
  useScorerVersion,
  useScorerVersions,
  useUpdateScorer,
} from '@/lib/api/ops/scorers';
import { CodeEditor } from './components/CodeEditor';
import { TryPane } from './components/TryPane';

/**
 * One code reward or metric (route /rewards/:scorerId): its source in an editor with
 * syntax highlighting, save as a new version with a message, the version history (open
 * an older one; `?version=N` opens version N), and the try pane on dataset rows.
 */
export default function RewardEditorPage() {
  const id = Number(useParams().scorerId);
  const scorer = useScorer(id);
  const versions = useScorerVersions(id);
  // `?version=N` (a run's "Scored by" link) opens that version; else the newest.
  const asked = Number(useSearchParams()[0].get('version'));
  const [shown, setShown] = useState<number | null>(
    Number.isInteger(asked) && asked > 0 ? asked : null,
  );
  const number = shown ?? scorer.data?.latest_version ?? null;
  const version = useScorerVersion(id, number);
  // The editor's text: null while it shows the version as stored.
  const [draft, setDraft] = useState<{ number: number | null; text: string } | null>(null);
  const text = draft && draft.number === number ? draft.text : (version.data?.source ?? '');
  const edited = draft !== null && draft.number === number && draft.text !== version.data?.source;
  const [message, setMessage] = useState('');
  const saving = useSaveVersion(id);
  const removing = useDeleteScorer();
  const navigate = useNavigate();
  const problems = saving.error instanceof ApiError ? saving.error.problems : [];
  const sourceError = problems.map((p) => p.message).join('; ');

  if (scorer.isError) return <div className="page alert">{scorer.error.message}</div>;
  if (!scorer.data) return <p className="page note">Loading…</p>;
  const isLatest = number === scorer.data.latest_version;
  return (
    <section className="page">
      <div className="page-head">
        <h1>
          <Link to="/rewards">Rewards</Link> / {scorer.data.name}
        </h1>
        <span className="spacer" />
        <a className="btn" href={`/api/scorers/${id}/export/`} download>
          Export
        </a>
        <button
          type="button"
          className="btn btn-ghost"
          disabled={removing.isPending}
          onClick={() => removing.mutate(id, { onSuccess: () => navigate('/rewards') })}
        >
          Delete
        </button>
      </div>
      {removing.isError && (
        <div className="alert" role="alert">
          {removing.error.message}
        </div>
      )}
      <Details id={id} name={scorer.data.name} description={scorer.data.description} />
      <div className="grid-2">
        <section className="card" aria-label="Code">
          <h2>
            {scorer.data.kind === 'metric' ? 'Metric' : 'Reward'} · version {number ?? '—'}
            {!isLatest && ' (an older one)'}
            {edited && ' · edited'}
          </h2>
          <CodeEditor
            label="Source"
            value={text}
            onChange={(value) => setDraft({ number, text: value })}
          />
          {sourceError && (
            <div className="alert" role="alert">
              {sourceError}
            </div>
          )}
          <form
            aria-label="Save a version"
            onSubmit={(e) => {
              e.preventDefault();
              saving.mutate(
                { source: text, message },
                {
                  onSuccess: (saved) => {
                    setShown(saved.number);
                    setDraft(null);
                    setMessage('');
                  },
                },
              );
            }}
          >
            <FormField label="Message" hint="what this version changes">
              {(control) => (
                <input
                  {...control}
                  className="input"
                  value={message}
                  onChange={(e) => setMessage(e.target.value)}
                />
              )}
            </FormField>
            <button
              type="submit"
              className="btn btn-primary"
              disabled={!edited || saving.isPending}
            >
              {saving.isPending ? 'Checking in the sandbox…' : 'Save as a new version'}
            </button>
          </form>
        </section>
        <section className="card" aria-label="Versions">
          <h2>Versions</h2>
          <ol>
            {(versions.data ?? []).map((v) => (
              <li key={v.number}>
                <button
                  type="button"
                  className="btn btn-small btn-ghost"
                  aria-current={v.number === number ? 'true' : undefined}
                  onClick={() => {
                    setShown(v.number);
                    setDraft(null);
                  }}
                >
                  v{v.number}
                </button>{' '}
                {v.message || '—'}{' '}
                <span className="note">
                  {new Date(v.created_at).toLocaleString()}
                  {v.created_by ? ` · ${v.created_by}` : ''}
                </span>
              </li>
            ))}
          </ol>
        </section>
      </div>
      <TryPane scorerId={id} version={number} source={edited ? text : undefined} />
    </section>
  );
}

function Details({ id, name, description }: { id: number; name: string; description: string }) {
  const update = useUpdateScorer(id);
  const [form, setForm] = useState({ name, description });
  const problems = update.error instanceof ApiError ? update.error.problems : [];
  const changed = form.name !== name || form.description !== description;
  return (
    <form
      className="card"
      aria-label="Details"
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate(form);
      }}
    >
      <div className="grid-2">
        <FormField label="Name" error={problems.find((p) => p.path === 'name')?.message}>
          {(control) => (
            <input
              {...control}
              className="input"
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
          )}
        </FormField>
        <FormField label="Description">
          {(control) => (
            <input
              {...control}
              className="input"
              value={form.description}
              onChange={(e) => setForm({ ...form, description: e.target.value })}
            />
          )}
        </FormField>
      </div>
      <button type="submit" className="btn" disabled={!changed || update.isPending}>
        Save details
      </button>
    </form>
  );
}
