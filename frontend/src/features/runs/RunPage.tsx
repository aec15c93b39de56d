import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { GainVerdict } from '@/lib/components/GainVerdict';
import { PromptExport } from '@/lib/components/PromptExport';
import { useEventStream } from '@/lib/realtime/useEventStream';
import { useCancelRun } from './api/runsCancel';
import { useForkRun } from './api/runsFork';
import { historyCsvUrl } from './api/runsHistoryCsv';
import { runKey, useRun } from './api/runsRetrieve';
import { EpochCharts } from './components/EpochCharts';
import { ExamplesTable } from './components/ExamplesTable';
import { LineageSection } from './components/lineage/LineageSection';
import { PopulationTable } from './components/PopulationTable';
import { ScoredBy } from './components/ScoredBy';
import { UsagePanel } from './components/UsagePanel';
import { TrainedVariables } from './components/TrainedVariables';
import { VariablesPanel } from './components/VariablesPanel';
import {
  connectionNote,
  isActive,
  progressSummary,
  shownState,
  stateLabel,
} from './model/runStatus';
import { applyEvent, emptyView, inheritedLogs, type EvaluationSummary } from './model/runView';

function Summary({ title, summary }: { title: string; summary: EvaluationSummary | null }) {
  return (
    <div className="stat">
      <b>
        {summary?.reward
          ? `${summary.reward.mean.toFixed(3)} ± ${summary.reward.std.toFixed(3)}`
          : '—'}
      </b>
      <span>{title} reward (mean ± std)</span>
    </div>
  );
}

/** One run, live (route /runs/:runId): every chart reads the same view of its event stream. */
export default function RunPage() {
  const runId = Number(useParams().runId);
  const run = useRun(runId);
  const { view, status, replayed } = useEventStream(
    'runs',
    Number.isFinite(runId) ? runId : null,
    applyEvent,
    emptyView,
  );
  const cancel = useCancelRun(runId);
  const fork = useForkRun(runId);
  const navigate = useNavigate();
  const client = useQueryClient();
  const [forkEpoch, setForkEpoch] = useState('');
  const [exporting, setExporting] = useState(false);
  const serverState = view.state ?? run.data?.state ?? null;
  // From the click on Cancel (optimistic) until the worker stops and says so.
  const cancelRequested =
    cancel.isPending || cancel.isSuccess || Boolean(run.data?.cancel_requested);
  const state = shownState(serverState, cancelRequested);
  const inherited = useMemo(
    () => inheritedLogs(run.data?.inherited_epochs),
    [run.data?.inherited_epochs],
  );
  // The run's row (before/after, trained document) changes when it ends: refetch then.
  useEffect(() => {
    if (serverState && !isActive(serverState))
      void client.invalidateQueries({ queryKey: runKey(runId) });
  }, [serverState, client, runId]);
  if (run.isError)
    return (
      <section className="page">
        <div className="alert">{run.error.message}</div>
      </section>
    );
  const summary = progressSummary(view, serverState);
  const checkpoints = view.epochLogs.size + view.initialEpoch;
  return (
    <section className="page">
      <div className="page-head">
        <h1>
          Run #{runId}
          {run.data?.name ? ` — ${run.data.name}` : ''}
        </h1>
        <span className={`badge badge-${state ?? 'queued'}`} data-testid="run-state">
          {stateLabel(state) ?? '…'}
        </span>
        <span className="note" aria-live="polite">
          {connectionNote(serverState, status, replayed)}
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-danger"
          disabled={!isActive(serverState) || cancelRequested}
          onClick={() => cancel.mutate()}
        >
          Cancel
        </button>
        <label htmlFor="fork-epoch" className="note">
          Fork from epoch
        </label>
        <select
          id="fork-epoch"
          className="select"
          style={{ width: 80 }}
          value={forkEpoch}
          onChange={(e) => setForkEpoch(e.target.value)}
        >
          <option value="">—</option>
          {Array.from({ length: checkpoints + 1 }, (_, e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="btn"
          disabled={forkEpoch === '' || fork.isPending}
          onClick={() =>
            fork.mutate(
              { epoch: Number(forkEpoch) },
              { onSuccess: (r) => navigate(`/runs/${r.id}`) },
            )
          }
        >
          Fork
        </button>
        <Link className="btn" to={`/compare?ids=${runId}`}>
          Compare
        </Link>
        {serverState === 'succeeded' && (
          <>
            <button type="button" className="btn" onClick={() => setExporting(true)}>
              Export prompt
            </button>
            <Link className="btn" to={`/deployments?run=${runId}`}>
              Deploy
            </Link>
          </>
        )}
      </div>
      {run.data?.dataset_name && (
        <p className="note" data-testid="run-dataset">
          {run.data.dataset_version === null
            ? `Dataset ${run.data.dataset_name}: its newest version, once the run reads it.`
            : `Trained and tested on ${run.data.dataset_name}, version ${run.data.dataset_version}.`}
        </p>
      )}
      {run.data && <ScoredBy config={run.data.compile_config} />}
      {exporting && (
        <PromptExport source={{ kind: 'run', runId }} onClose={() => setExporting(false)} />
      )}
      {(cancel.isError || fork.isError) && (
        <div className="alert" role="alert">
          {(cancel.error ?? fork.error)?.message}
        </div>
      )}
      {view.error && (
        <div className="alert" role="alert">
          {view.error}
        </div>
      )}
      <div className="card">
        <div className="page-head" style={{ marginBottom: 6 }}>
          <span data-testid="run-progress">{summary.text}</span>
          <span className="spacer" />
          {summary.label && <span>{summary.label}</span>}
        </div>
        <div
          className="progress"
          role="progressbar"
          aria-label={
            summary.measures === 'evaluation' ? 'Evaluation progress' : 'Training progress'
          }
          aria-valuenow={summary.percent}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuetext={summary.label ? `${summary.label}: ${summary.text}` : summary.text}
        >
          <div style={{ width: `${summary.percent}%` }} />
        </div>
      </div>
      <div className="card">
        <div className="page-head" style={{ marginBottom: 6 }}>
          <h2>Epoch curves</h2>
          <span className="spacer" />
          <a className="btn" href={historyCsvUrl(runId)} download>
            Download CSV
          </a>
        </div>
        <EpochCharts view={view} inherited={inherited} inheritedFrom={run.data?.parent ?? null} />
      </div>
      <div className="grid-2">
        <div className="card">
          <h2>LM usage</h2>
          <UsagePanel view={view} active={isActive(serverState)} />
          <h2 style={{ marginTop: 14 }}>Evaluations on the test split</h2>
          <div className="stats">
            <Summary title="Before" summary={view.evaluations.before} />
            <Summary title="After" summary={view.evaluations.after} />
          </div>
          {run.data?.gain ? (
            <GainVerdict comparison={run.data.gain} title="After vs before, row by row" />
          ) : (
            serverState === 'succeeded' && (
              <p className="note">This run kept no per-row rewards: no verdict on its gain.</p>
            )
          )}
        </div>
        <div className="card">
          <h2>Optimizer population</h2>
          <PopulationTable view={view} />
        </div>
      </div>
      <div className="card">
        <h2>Test rows after training</h2>
        <ExamplesTable runId={runId} finished={serverState !== null && !isActive(serverState)} />
      </div>
      <div className="card">
        <h2>Trainable variables</h2>
        <VariablesPanel view={view} />
      </div>
      <div className="card">
        <h2>Each module before and after training</h2>
        <TrainedVariables runId={runId} finished={serverState !== null && !isActive(serverState)} />
      </div>
      <LineageSection runId={runId} candidates={view.candidates} />
    </section>
  );
}
