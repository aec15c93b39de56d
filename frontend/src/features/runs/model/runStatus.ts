/**
 * What the run page's header and progress bar say: the state shown (with "cancelling"
 * between a cancel and the server's final state), whether the page is live, and how far
 * training got. Pure, from the event view and the run's row.
 */
import { ACTIVE_STATES } from '@/lib/api/ops/runsStatus';
import type { StreamStatus } from '@/lib/realtime/eventStream';
import { progress, type EvaluationProgress, type RunView } from './runView';

export function isActive(state: string | null): boolean {
  return state !== null && ACTIVE_STATES.has(state);
}

/**
 * The state to show: the server's, except "cancelling" while a cancel was asked for
 * (by this page, or already on the row) and the run has not reached a final state yet.
 */
export function shownState(state: string | null, cancelRequested: boolean): string | null {
  return cancelRequested && isActive(state) ? 'cancelling' : state;
}

/** The state in words: `budget_spent` says the run stopped on a cap and kept its best program. */
export function stateLabel(state: string | null): string | null {
  return state === 'budget_spent' ? 'budget spent — best program kept' : state;
}

/**
 * The note beside the state: "live" only while the run can still change and the socket
 * is open with the history replayed; nothing once the run has ended (its page is final).
 */
export function connectionNote(
  state: string | null,
  status: StreamStatus,
  replayed: boolean,
): string | null {
  if (status === 'open' && !replayed) return 'replaying history…';
  if (state !== null && !isActive(state))
    return status === 'open' || status === 'closed' ? null : status;
  return status === 'open' ? 'live' : status;
}

export type ProgressSummary = {
  /** The line above the bar. */
  text: string;
  /** The bar's fill, 0-100. */
  percent: number;
  /** The figure at the right of the line; null when the text says where the run stopped. */
  label: string | null;
  /** What the bar measures: the training, or an evaluation on the test split under way. */
  measures: 'training' | 'evaluation';
};

/** "Evaluating before training: 23 of 60 rows (evaluation 2 of 3)" and its share done. */
export function evaluationSummary(evaluating: EvaluationProgress): ProgressSummary {
  const { phase, index, evaluations, rowsDone, rows } = evaluating;
  const which = evaluations > 1 ? ` (evaluation ${index + 1} of ${evaluations})` : '';
  const done = rows > 0 ? (index * rows + rowsDone) / (evaluations * rows) : 0;
  const percent = Math.round(Math.min(1, Math.max(0, done)) * 100);
  return {
    text: `Evaluating ${phase} training: ${rowsDone} of ${rows} row${rows === 1 ? '' : 's'}${which}`,
    percent,
    label: `${percent}%`,
    measures: 'evaluation',
  };
}

function position(view: RunView): string {
  if (view.epoch === null || !view.epochs) return '';
  const epoch = `epoch ${view.epoch + 1} of ${view.epochs}`;
  return view.steps && view.batch !== null
    ? `${epoch}, batch ${view.batch + 1} of ${view.steps}`
    : epoch;
}

/**
 * "Trained 2 of 5 epochs — stopped early: val_reward did not improve for 1 epoch (best
 * 0.750, epoch 1)": where early stopping ended training, and why.
 */
export function earlyStopText(stop: NonNullable<RunView['earlyStop']>): string {
  const trained = stop.epoch + 1;
  const of = stop.epochs ? ` of ${stop.epochs}` : '';
  const patience = stop.patience ?? 1;
  const delta = stop.minDelta > 0 ? ` by more than ${stop.minDelta}` : '';
  const best =
    stop.best !== null && stop.bestEpoch !== null
      ? ` (best ${stop.best.toFixed(3)}, epoch ${stop.bestEpoch + 1}${stop.restoredBest ? ', restored' : ''})`
      : '';
  return (
    `Trained ${trained}${of} epoch${trained === 1 && !of ? '' : 's'} — stopped early: ` +
    `${stop.monitor} did not improve${delta} for ${patience} epoch${patience === 1 ? '' : 's'}${best}`
  );
}

/** The progress line and bar of a run, in words where a percentage would mislead. */
export function progressSummary(view: RunView, state: string | null): ProgressSummary {
  const percent = Math.round(progress(view) * 100);
  const where = position(view);
  if (state === 'cancelled' || state === 'failed') {
    const verb = state === 'cancelled' ? 'Stopped' : 'Failed';
    let text: string;
    if (view.trainEnded && !view.trainCancelled)
      text = `${verb} after training (${where}), during the evaluation after it`;
    else if (where) text = `${verb} at ${where}`;
    else text = `${verb} before training`;
    return { text, percent, label: null, measures: 'training' };
  }
  if (state === 'budget_spent') {
    const cap = view.budgetCap ? ` (the cap on ${view.budgetCap})` : '';
    const text = view.trainEnded
      ? `Budget spent${cap} after training — best program kept`
      : where
        ? `Budget spent${cap} at ${where} — best program kept`
        : `Budget spent${cap} before training — nothing was trained`;
    return {
      text,
      percent,
      label: null,
      measures: 'training',
    };
  }
  if (state === 'succeeded' && view.earlyStop) {
    return {
      text: earlyStopText(view.earlyStop),
      percent: 100,
      label: '100%',
      measures: 'training',
    };
  }
  if (state === 'succeeded') {
    const epochs = view.epochs ? `${view.epochs} epoch${view.epochs === 1 ? '' : 's'}` : 'all';
    return { text: `Trained ${epochs}`, percent: 100, label: '100%', measures: 'training' };
  }
  if (view.evaluating && state !== 'queued') return evaluationSummary(view.evaluating);
  let text: string;
  if (where) text = where.charAt(0).toUpperCase() + where.slice(1);
  else if (state === 'queued') text = 'Waiting for a worker…';
  else text = 'Evaluating before training…';
  return { text, percent, label: `${percent}%`, measures: 'training' };
}
