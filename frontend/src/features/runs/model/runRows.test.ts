import { describe, expect, it } from 'vitest';
import type { Run } from '@/lib/api/types';
import { runRows, sortRows } from './runRows';

const run = (id: number, over: Partial<Run>): Run =>
  ({
    id,
    name: `run ${id}`,
    state: 'succeeded',
    current_epoch: 2,
    fit_config: { epochs: 2 },
    before: null,
    after: null,
    usage: {},
    created_at: `2026-11-30T10:0${id}:00Z`,
    program_name: 'Capitals',
    version_number: id,
    dataset_name: 'capitals',
    optimizer: 'omega',
    ...over,
  }) as Run;

describe('runs table rows', () => {
  const runs = [
    run(1, {
      before: { summary: { reward: { mean: 0.2, std: 0 } } },
      after: { summary: { reward: { mean: 0.5, std: 0 } } },
      gain: {
        n: 100,
        mean_before: 0.2,
        mean_after: 0.5,
        difference: 0.3,
        ci_low: 0.2,
        ci_high: 0.4,
        p_value: 0.001,
        min_detectable_difference: 0.05,
        verdict: 'significant gain',
        target: 0.05,
        rows_needed: 50,
        sentence: 'significant gain',
      },
      usage: { calls: 100, cost: 0.01 },
    }),
    run(2, { state: 'running', current_epoch: 1, usage: { calls: 10 }, optimizer: null }),
    run(3, {
      before: { summary: { reward: { mean: 0.4, std: 0 } } },
      after: { summary: { reward: { mean: 0.9, std: 0 } } },
    }),
  ];

  it('takes the key figures from the run', () => {
    expect(runRows(runs)[0]).toMatchObject({
      epochs: '2/2',
      before: 0.2,
      after: 0.5,
      gain: 0.3,
      gainInterval: '[+0.200, +0.400] n = 100',
      verdict: 'significant gain',
      calls: 100,
      cost: 0.01,
    });
    // Means that moved but carry no stored verdict claim no gain.
    expect(runRows(runs)[2]).toMatchObject({ before: 0.4, after: 0.9, gain: null, verdict: null });
    expect(runRows(runs)[1]).toMatchObject({ epochs: '1/2', gain: null, cost: null });
  });

  it('names the program version, dataset and optimizer of each run', () => {
    expect(runRows(runs)[0]).toMatchObject({
      program: 'Capitals v1',
      dataset: 'capitals',
      optimizer: 'omega',
    });
    expect(runRows(runs)[1]?.optimizer).toBeNull();
    expect(sortRows(runRows(runs), 'optimizer', false).map((r) => r.id)).toEqual([1, 3, 2]);
  });

  it('sorts by a figure either way, runs without it last', () => {
    const rows = runRows(runs);
    expect(sortRows(rows, 'after', true).map((r) => r.id)).toEqual([3, 1, 2]);
    expect(sortRows(rows, 'after', false).map((r) => r.id)).toEqual([1, 3, 2]);
    expect(sortRows(rows, 'gain', true).map((r) => r.id)).toEqual([1, 2, 3]);
    expect(sortRows(rows, 'state', false).map((r) => r.state)).toEqual([
      'running',
      'succeeded',
      'succeeded',
    ]);
  });
});
