import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  batchTotals,
  buildView,
  concurrencyLowered,
  curveGroups,
  emptyView,
  epochCurves,
  inheritedLogs,
  lineOption,
  progress,
  variableChanges,
} from './runView';

const ev = (seq: number, kind: string, payload: Record<string, unknown>) => ({
  seq,
  kind,
  payload,
});

const history = [
  ev(1, 'state', { state: 'queued' }),
  ev(2, 'state', { state: 'running' }),
  ev(3, 'train_begin', { epochs: 2, steps: 4, initial_epoch: 0 }),
  ev(4, 'epoch_begin', { epoch: 0 }),
  ev(5, 'batch', { epoch: 0, batch: 1, steps: 4, logs: { reward: 0.2 } }),
  ev(6, 'epoch', { epoch: 0, logs: { reward: 0.25, val_reward: 0.2, f1_score: 0.3 } }),
  ev(7, 'variables', { epoch: 0, variables: { 'gen/state': { instructions: 'a', examples: [] } } }),
  ev(8, 'usage', { calls: 40, total_tokens: 900, cost: 0.01, mean_latency_s: 0.05 }),
  ev(9, 'epoch_begin', { epoch: 1 }),
  ev(10, 'batch', { epoch: 1, batch: 1, steps: 4, logs: {} }),
];

describe('run events -> view', () => {
  it('follows state, progress and usage', () => {
    const view = buildView(history);
    expect(view.state).toBe('running');
    // Epoch 0 done, 2 of 4 batches of epoch 1: (1 + 0.5) / 2.
    expect(progress(view)).toBeCloseTo(0.75);
    expect(view.usage).toMatchObject({ calls: 40, total_tokens: 900, cost: 0.01 });
  });

  it('ignores an event already applied (replay overlapping live)', () => {
    const view = buildView(history);
    expect(applyEvent(view, history[5]!)).toBe(view);
  });

  it('gives one series per logged figure, each val_ figure after its twin', () => {
    const view = buildView([
      ...history,
      ev(11, 'epoch', { epoch: 1, logs: { reward: 0.5, val_reward: 0.4, f1_score: 0.6 } }),
    ]);
    const curves = epochCurves(view);
    expect(curves.epochs).toEqual([0, 1]);
    expect(curves.series.map((s) => s.name)).toEqual(['f1_score', 'reward', 'val_reward']);
    expect(curves.series[1]!.data).toEqual([0.25, 0.5]);
    expect(curves.series[2]!.data).toEqual([0.2, 0.4]);
  });

  it('keeps the last report of an epoch redone after a resume', () => {
    const view = buildView([
      ev(1, 'epoch', { epoch: 0, logs: { reward: 0.1 } }),
      ev(2, 'epoch', { epoch: 0, logs: { reward: 0.3 } }),
    ]);
    expect(epochCurves(view).series[0]!.data).toEqual([0.3]);
  });

  it('diffs the trainable variables against the previous epoch', () => {
    const view = buildView([
      ...history,
      ev(11, 'variables', {
        epoch: 1,
        variables: { 'gen/state': { instructions: 'a', examples: [{ inputs: { q: 1 } }] } },
      }),
    ]);
    expect(variableChanges(view, 1)).toEqual([
      { variable: 'gen/state', field: 'examples', before: [], after: [{ inputs: { q: 1 } }] },
    ]);
  });

  it('keeps the latest population with DNS scores, parents and operations', () => {
    const view = applyEvent(
      emptyView(),
      ev(1, 'optimizer', {
        event: 'population',
        variable: 'gen/state',
        epoch: 0,
        algorithm: 'dns',
        population: [
          {
            id: 'gen/state#2',
            reward: 0.8,
            score: 0.5,
            parents: ['gen/state#1'],
            operation: 'mutation',
            kept: true,
          },
        ],
      }),
    );
    expect(view.populations['gen/state']).toEqual({
      epoch: 0,
      algorithm: 'dns',
      candidates: [
        {
          id: 'gen/state#2',
          reward: 0.8,
          score: 0.5,
          parents: ['gen/state#1'],
          operation: 'mutation',
          kept: true,
        },
      ],
    });
  });

  it('reports a failure with its error', () => {
    const view = buildView([ev(1, 'state', { state: 'failed', error: 'ValueError: boom' })]);
    expect(view).toMatchObject({ state: 'failed', error: 'ValueError: boom' });
    expect(progress(view)).toBe(0);
  });
});

describe('curve groups', () => {
  it('puts reward and val_reward on one chart, reward first', () => {
    const groups = curveGroups({
      epochs: [0, 1],
      series: [
        { name: 'f1_score', data: [0.1, 0.2] },
        { name: 'reward', data: [0.2, 0.4] },
        { name: 'val_reward', data: [0.1, 0.3] },
      ],
    });
    expect(groups.map((g) => [g.title, g.series.map((s) => s.name)])).toEqual([
      ['reward', ['reward', 'val_reward']],
      ['f1_score', ['f1_score']],
    ]);
    const option = lineOption('reward', [0, 1], groups[0]!.series);
    expect(option.xAxis.data).toEqual(['0', '1']);
    expect(option.series.map((s) => [s.name, s.data, s.lineStyle?.type])).toEqual([
      ['reward', [0.2, 0.4], undefined],
      ['val_reward', [0.1, 0.3], 'dashed'],
    ]);
  });

  it('tallies batches and failed predictions as batch events arrive, between usage reports', () => {
    const view = buildView([
      ev(1, 'train_begin', { epochs: 2, steps: 4, initial_epoch: 0 }),
      ev(2, 'batch', { epoch: 0, batch: 0, steps: 4, logs: { reward: 0.1 } }),
      ev(3, 'batch', { epoch: 0, batch: 1, steps: 4, logs: { reward: 0.1, failures: 2 } }),
      ev(4, 'batch', { epoch: 0, batch: 3, steps: 4, logs: { reward: 0.2, failures: 3 } }),
      ev(5, 'usage', { calls: 40, total_tokens: 900 }),
      ev(6, 'batch', { epoch: 1, batch: 0, steps: 4, logs: { failures: 1 } }),
    ]);
    expect(batchTotals(view)).toEqual({ batches: 5, failedPredictions: 4 });
    expect(view.batches.batchesSinceUsage).toBe(1);
    expect(view.usage?.calls).toBe(40);
  });

  it('takes the usage a batch event carries, when the server sends it', () => {
    const view = buildView([
      ev(1, 'batch', { epoch: 0, batch: 0, steps: 4, logs: {}, usage: { calls: 8, cost: 0.002 } }),
      ev(2, 'batch', { epoch: 0, batch: 1, steps: 4, logs: {}, usage: { calls: 16, cost: 0.004 } }),
    ]);
    expect(view.usage).toMatchObject({ calls: 16, cost: 0.004 });
    expect(view.batches.batchesSinceUsage).toBe(0);
  });

  it('counts an epoch redone after a resume once', () => {
    const view = buildView([
      ev(1, 'batch', { epoch: 0, batch: 3, steps: 4, logs: { failures: 2 } }),
      ev(2, 'batch', { epoch: 1, batch: 1, steps: 4, logs: { failures: 5 } }),
      ev(3, 'resumed', { from_epoch: 1, attempt: 2 }),
      ev(4, 'batch', { epoch: 1, batch: 0, steps: 4, logs: {} }),
    ]);
    expect(batchTotals(view)).toEqual({ batches: 5, failedPredictions: 2 });
  });
});

describe('evaluation progress', () => {
  it('follows the rows done of each evaluation and clears when its phase is summarised', () => {
    const progressOf = (seq: number, index: number, done: number) =>
      ev(seq, 'evaluation_progress', {
        phase: 'before',
        index,
        evaluations: 2,
        rows_done: done,
        rows: 60,
      });
    let view = buildView([ev(1, 'state', { state: 'running' }), progressOf(2, 0, 23)]);
    expect(view.evaluating).toEqual({
      phase: 'before',
      index: 0,
      evaluations: 2,
      rowsDone: 23,
      rows: 60,
    });
    view = applyEvent(view, progressOf(3, 1, 60));
    expect(view.evaluating?.index).toBe(1);
    view = applyEvent(view, ev(4, 'evaluation_summary', { phase: 'before', summary: {} }));
    expect(view.evaluating).toBeNull();
  });

  it('starts training with no evaluation under way, and ignores a progress without rows', () => {
    const view = buildView([
      ev(1, 'evaluation_progress', { phase: 'before', index: 0, rows_done: 3, rows: 10 }),
      ev(2, 'train_begin', { epochs: 2, steps: 4, initial_epoch: 0 }),
      ev(3, 'evaluation_progress', { phase: 'after', rows_done: 3 }),
    ]);
    expect(view.evaluating).toBeNull();
  });

  it('takes the usage an evaluation reports as it goes, then the usage event after it', () => {
    let view = buildView([
      ev(1, 'evaluation_progress', {
        phase: 'before',
        index: 0,
        rows_done: 4,
        rows: 10,
        usage: { calls: 4 },
      }),
    ]);
    expect(view.usage?.calls).toBe(4);
    view = applyEvent(view, ev(2, 'evaluation_summary', { phase: 'before', summary: {} }));
    view = applyEvent(view, ev(3, 'usage', { calls: 10, total_tokens: 300 }));
    expect(view.usage).toMatchObject({ calls: 10, total_tokens: 300 });
  });
});

describe('inherited epochs of a fork', () => {
  const inherited = inheritedLogs([
    { epoch: 0, run: 7, logs: { reward: 0.1, val_reward: 0.05 } },
    { epoch: 1, run: 7, logs: { reward: 0.2, val_reward: 'NaN' } },
  ]);

  it('draws the parent epochs as their own series before the fork point', () => {
    const view = buildView([
      ev(1, 'epoch', { epoch: 2, logs: { reward: 0.5, val_reward: 0.4 } }),
      ev(2, 'epoch', { epoch: 3, logs: { reward: 0.6, val_reward: 0.5 } }),
    ]);
    const curves = epochCurves(view, inherited);
    expect(curves.epochs).toEqual([0, 1, 2, 3]);
    expect(curves.series.map((s) => [s.name, Boolean(s.inherited), s.data])).toEqual([
      ['reward', false, [null, null, 0.5, 0.6]],
      ['val_reward', false, [null, null, 0.4, 0.5]],
      ['reward', true, [0.1, 0.2, null, null]],
      ['val_reward', true, [0.05, null, null, null]],
    ]);
    const [group] = curveGroups(curves);
    const option = lineOption(group!.title, curves.epochs, group!.series, 7);
    expect(option.series.map((s) => s.name)).toEqual([
      'reward',
      'val_reward',
      'reward (inherited from run #7)',
      'val_reward (inherited from run #7)',
    ]);
    expect(option.series[2]).toMatchObject({ color: '#8b95a5', lineStyle: { type: 'dashed' } });
  });

  it('shows the inherited epochs alone until the fork ends its first epoch', () => {
    const curves = epochCurves(buildView([]), inherited);
    expect(curves.series.every((s) => s.inherited)).toBe(true);
    expect(curves.epochs).toEqual([0, 1]);
  });

  it('lets an epoch the fork trained itself win over an inherited one', () => {
    const view = buildView([ev(1, 'epoch', { epoch: 1, logs: { reward: 0.9 } })]);
    const reward = epochCurves(view, inherited).series.filter((s) => s.name === 'reward');
    expect(reward.map((s) => s.data)).toEqual([
      [null, 0.9],
      [0.1, null],
    ]);
  });
});

describe('usage figures: timing, concurrency, cache, budget', () => {
  const usage = {
    calls: 120,
    cached_calls: 18,
    mean_queue_ms: 12.4,
    mean_provider_ms: 840,
    concurrency_bound: 4,
    max_concurrency: 8,
    concurrency_history: [
      { at: 1, bound: 8, reason: 'start' },
      { at: 2, bound: 4, reason: 'rate limited' },
    ],
    budget: {
      calls: 120,
      tokens: 9000,
      cost: 0.1,
      max_calls: 200,
      max_tokens: null,
      max_cost: null,
      exhausted: null,
    },
  };

  it('reads them from usage events and from batches that carry usage', () => {
    for (const view of [
      buildView([ev(1, 'usage', usage)]),
      buildView([ev(1, 'batch', { epoch: 0, batch: 0, steps: 2, logs: {}, usage })]),
      buildView([ev(1, 'evaluation_progress', { phase: 'before', rows: 5, rows_done: 1, usage })]),
    ]) {
      expect(view.usage).toMatchObject({
        cached_calls: 18,
        mean_queue_ms: 12.4,
        mean_provider_ms: 840,
        concurrency_bound: 4,
        max_concurrency: 8,
        budget: { calls: 120, max_calls: 200, max_tokens: null, exhausted: null },
      });
      expect(view.usage!.concurrency_history).toHaveLength(2);
    }
  });

  it('defaults the figures a run recorded before them', () => {
    const view = buildView([ev(1, 'usage', { calls: 3 })]);
    expect(view.usage).toMatchObject({
      mean_queue_ms: 0,
      cached_calls: 0,
      concurrency_bound: null,
      concurrency_history: [],
      budget: null,
    });
  });

  it('tells a concurrency bound lowered after rate limits', () => {
    expect(concurrencyLowered(usage)).toBe(true);
    expect(
      concurrencyLowered({ concurrency_history: [{ at: 1, bound: 8, reason: 'start' }] }),
    ).toBe(false);
    expect(
      concurrencyLowered({
        concurrency_history: [
          { at: 1, bound: 8, reason: 'start' },
          { at: 2, bound: 6, reason: '' },
        ],
      }),
    ).toBe(true);
  });

  it('records the cap a budget_spent event names, and its budget', () => {
    const view = buildView([
      ev(1, 'usage', usage),
      ev(2, 'budget_spent', {
        cap: 'calls',
        budget: { ...usage.budget, calls: 200, exhausted: 'calls' },
      }),
    ]);
    expect(view.budgetCap).toBe('calls');
    expect(view.usage!.budget).toMatchObject({ calls: 200, exhausted: 'calls' });
    expect(view.usage!.cached_calls).toBe(18);
  });
});
