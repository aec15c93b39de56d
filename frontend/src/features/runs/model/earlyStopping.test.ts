import { describe, expect, it } from 'vitest';
import {
  EARLY_STOPPING_OFF,
  earlyStoppingSentence,
  loggedName,
  monitorChoices,
  parseEarlyStopping,
} from './earlyStopping';

const on = { ...EARLY_STOPPING_OFF, on: true };

describe('early stopping in the run form', () => {
  it('is off by default: nothing goes into fit_config', () => {
    expect(parseEarlyStopping(EARLY_STOPPING_OFF, ['F1Score'], 0.2)).toEqual({
      value: null,
      errors: {},
    });
  });

  it('watches the validation reward by default when the run holds validation rows', () => {
    expect(parseEarlyStopping(on, [], 0.2).value).toEqual({
      patience: 2,
      min_delta: 0,
      monitor: 'val_reward',
      restore_best_variables: false,
    });
    expect(parseEarlyStopping(on, [], 0).value?.monitor).toBe('reward');
  });

  it('offers the figures the epochs log, metrics by the name they log under', () => {
    expect(loggedName('F1Score')).toBe('f1_score');
    expect(loggedName('Precision')).toBe('precision');
    expect(monitorChoices(['F1Score'], 0.25)).toEqual([
      'val_reward',
      'val_f1_score',
      'reward',
      'f1_score',
    ]);
    expect(monitorChoices(['F1Score'], 0)).toEqual(['reward', 'f1_score']);
  });

  it('refuses what the server would, naming the setting', () => {
    const bad = parseEarlyStopping({ ...on, patience: '0', minDelta: '-1' }, [], 0.2);
    expect(bad.value).toBeNull();
    expect(bad.errors).toEqual({ patience: 'a whole number ≥ 1', minDelta: 'a number ≥ 0' });
    expect(parseEarlyStopping({ ...on, patience: '1.5' }, [], 0.2).errors.patience).toBeTruthy();
    // A validation figure once the split is back to 0.
    expect(parseEarlyStopping({ ...on, monitor: 'val_reward' }, [], 0).errors).toEqual({
      monitor: 'val_reward needs a validation split above 0',
    });
    // A metric's figure once the metric is dropped.
    expect(parseEarlyStopping({ ...on, monitor: 'val_f1_score' }, [], 0.2).errors).toEqual({
      monitor: 'not logged by this run: one of val_reward, reward',
    });
    expect(parseEarlyStopping({ ...on, monitor: 'recall' }, ['F1Score'], 0).errors).toEqual({
      monitor: 'not logged by this run: one of reward, f1_score',
    });
  });

  it('says what it will do', () => {
    const value = parseEarlyStopping({ ...on, patience: '1', minDelta: '0.01' }, [], 0.2).value!;
    expect(earlyStoppingSentence(value)).toBe(
      'Stops after 1 epoch without a rise of val_reward (by more than 0.01)',
    );
  });
});
