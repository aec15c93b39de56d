import { describe, expect, it } from 'vitest';
import { connectionNote, progressSummary, shownState, stateLabel } from './runStatus';
import { buildView } from './runView';

const ev = (seq: number, kind: string, payload: Record<string, unknown>) => ({
  seq,
  kind,
  payload,
});

// Five epochs of eight batches; the run got to the third batch of the second epoch.
const midway = [
  ev(1, 'state', { state: 'running' }),
  ev(2, 'train_begin', { epochs: 5, steps: 8, initial_epoch: 0 }),
  ev(3, 'epoch_begin', { epoch: 0 }),
  ev(4, 'batch', { epoch: 0, batch: 7, steps: 8, logs: {} }),
  ev(5, 'epoch', { epoch: 0, logs: { reward: 0.5 } }),
  ev(6, 'epoch_begin', { epoch: 1 }),
  ev(7, 'batch', { epoch: 1, batch: 2, steps: 8, logs: {} }),
];

describe('shownState', () => {
  it('says cancelling from the cancel until the server reports a final state', () => {
    expect(shownState('running', false)).toBe('running');
    expect(shownState('running', true)).toBe('cancelling');
    expect(shownState('queued', true)).toBe('cancelling');
    expect(shownState('cancelled', true)).toBe('cancelled');
    expect(shownState('succeeded', true)).toBe('succeeded');
    expect(shownState(null, true)).toBeNull();
  });
});

describe('connectionNote', () => {
  it('says live only while the run can change and the socket is open and caught up', () => {
    expect(connectionNote('running', 'open', true)).toBe('live');
    expect(connectionNote('queued', 'open', true)).toBe('live');
    expect(connectionNote(null, 'open', true)).toBe('live');
    expect(connectionNote('running', 'open', false)).toBe('replaying history…');
    expect(connectionNote('running', 'connecting', false)).toBe('connecting');
    expect(connectionNote('running', 'closed', true)).toBe('closed');
  });

  it('says nothing once the run has ended, bar a socket the server refused', () => {
    for (const state of ['succeeded', 'failed', 'cancelled']) {
      expect(connectionNote(state, 'open', true)).toBeNull();
      expect(connectionNote(state, 'closed', true)).toBeNull();
    }
    expect(connectionNote('succeeded', 'open', false)).toBe('replaying history…');
    expect(connectionNote('succeeded', 'forbidden', false)).toBe('forbidden');
  });
});

describe('progressSummary', () => {
  it('shows where a running run is, and its percentage', () => {
    const summary = progressSummary(buildView(midway), 'running');
    expect(summary.text).toBe('Epoch 2 of 5, batch 3 of 8');
    // One epoch and 3/8 of the next, of five: 27.5%.
    expect(summary).toMatchObject({ percent: 28, label: '28%' });
  });

  it('says where a cancelled run stopped instead of a percentage', () => {
    const view = buildView([
      ...midway,
      ev(8, 'epoch', { epoch: 1, logs: { reward: 0.6 } }),
      ev(9, 'train_end', { logs: {}, cancelled: true }),
      ev(10, 'state', { state: 'cancelled' }),
    ]);
    const summary = progressSummary(view, 'cancelled');
    expect(summary.text).toBe('Stopped at epoch 2 of 5, batch 3 of 8');
    expect(summary.label).toBeNull();
    expect(summary.percent).toBeLessThan(100);
  });

  it('tells a run stopped before training, or during the last evaluation', () => {
    expect(
      progressSummary(buildView([ev(1, 'state', { state: 'cancelled' })]), 'cancelled').text,
    ).toBe('Stopped before training');
    const trained = buildView([
      ...midway,
      ev(8, 'train_end', { logs: {}, cancelled: false }),
      ev(9, 'state', { state: 'failed' }),
    ]);
    expect(progressSummary(trained, 'failed').text).toBe(
      'Failed after training (epoch 2 of 5, batch 3 of 8), during the evaluation after it',
    );
  });

  it('fills the bar of a run that succeeded', () => {
    const view = buildView([...midway, ev(8, 'state', { state: 'succeeded' })]);
    expect(progressSummary(view, 'succeeded')).toEqual({
      text: 'Trained 5 epochs',
      percent: 100,
      label: '100%',
      measures: 'training',
    });
  });

  it('says what comes before the first epoch', () => {
    expect(progressSummary(buildView([]), 'queued').text).toBe('Waiting for a worker…');
    expect(progressSummary(buildView([]), 'running').text).toBe('Evaluating before training…');
  });

  it('counts the rows of the evaluation under way, before and after training', () => {
    const before = buildView([
      ev(1, 'state', { state: 'running' }),
      ev(2, 'evaluation_progress', {
        phase: 'before',
        index: 0,
        evaluations: 1,
        rows_done: 23,
        rows: 60,
      }),
    ]);
    expect(progressSummary(before, 'running')).toEqual({
      text: 'Evaluating before training: 23 of 60 rows',
      percent: 38,
      label: '38%',
      measures: 'evaluation',
    });
    const after = buildView([
      ...midway,
      ev(8, 'train_end', { logs: {}, cancelled: false }),
      ev(9, 'evaluation_progress', {
        phase: 'after',
        index: 1,
        evaluations: 3,
        rows_done: 30,
        rows: 60,
      }),
    ]);
    // One evaluation done and half of the second, of three.
    expect(progressSummary(after, 'running')).toMatchObject({
      text: 'Evaluating after training: 30 of 60 rows (evaluation 2 of 3)',
      percent: 50,
    });
    // A run sent back to the queue waits for a worker, whatever it was doing.
    expect(progressSummary(before, 'queued').text).toBe('Waiting for a worker…');
  });
});

describe('budget_spent', () => {
  it('labels the state in words', () => {
    expect(stateLabel('budget_spent')).toBe('budget spent — best program kept');
    expect(stateLabel('running')).toBe('running');
    expect(stateLabel(null)).toBeNull();
  });

  it('says where the run stopped on its cap, and that its best program was kept', () => {
    const view = buildView([...midway, ev(8, 'budget_spent', { cap: 'calls' })]);
    const summary = progressSummary(view, 'budget_spent');
    expect(summary.text).toBe(
      'Budget spent (the cap on calls) at epoch 2 of 5, batch 3 of 8 — best program kept',
    );
    expect(summary.label).toBeNull();
  });

  it('says nothing was trained when the cap was reached before training', () => {
    const view = buildView([ev(1, 'state', { state: 'running' })]);
    expect(progressSummary(view, 'budget_spent').text).toBe(
      'Budget spent before training — nothing was trained',
    );
  });

  it('says after training when the evaluation after it ran out', () => {
    const view = buildView([
      ...midway,
      ev(8, 'train_end', {}),
      ev(9, 'budget_spent', { cap: 'cost' }),
    ]);
    expect(progressSummary(view, 'budget_spent').text).toBe(
      'Budget spent (the cap on cost) after training — best program kept',
    );
  });
});

describe('early stopping', () => {
  const stopped = [
    ...midway,
    ev(8, 'epoch', { epoch: 1, logs: { reward: 0.5, val_reward: 0.5 } }),
    ev(9, 'train_end', {}),
    ev(10, 'early_stopped', {
      epoch: 1,
      epochs: 5,
      monitor: 'val_reward',
      patience: 1,
      min_delta: 0,
      best: 0.75,
      best_epoch: 0,
      restored_best: false,
    }),
    ev(11, 'state', { state: 'succeeded' }),
  ];

  it('says a run stopped early, after how many of its epochs, and why', () => {
    const summary = progressSummary(buildView(stopped), 'succeeded');
    expect(summary.text).toBe(
      'Trained 2 of 5 epochs — stopped early: val_reward did not improve for 1 epoch (best 0.750, epoch 1)',
    );
    expect(summary.percent).toBe(100);
  });

  it('names the min delta and a restored best epoch', () => {
    const view = buildView([
      ...midway,
      ev(8, 'early_stopped', {
        epoch: 3,
        epochs: 10,
        monitor: 'val_f1_score',
        patience: 2,
        min_delta: 0.01,
        best: 0.5,
        best_epoch: 1,
        restored_best: true,
      }),
    ]);
    expect(progressSummary(view, 'succeeded').text).toBe(
      'Trained 4 of 10 epochs — stopped early: val_f1_score did not improve by more than 0.01 for 2 epochs (best 0.500, epoch 2, restored)',
    );
  });

  it('says nothing of it for a run that trained every epoch', () => {
    const view = buildView([...midway, ev(8, 'state', { state: 'succeeded' })]);
    expect(view.earlyStop).toBeNull();
    expect(progressSummary(view, 'succeeded').text).toBe('Trained 5 epochs');
  });
});
