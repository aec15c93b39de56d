import { describe, expect, it } from 'vitest';
import {
  durationText,
  expectedCost,
  expectedDuration,
  expectedTokens,
  plannedUsage,
  type Throughput,
} from './expectations';
import { unmeasured } from '../__fixtures__/throughput';

const measured: Throughput = {
  runs: 4,
  calls_per_second: 2.1,
  tokens_per_call: 150,
  tokens_from: 'program',
  tokens_runs: 3,
  cost_per_token: 1.5e-6,
  prices: 'priced',
  cost_runs: 4,
};

const nothing: Throughput = unmeasured;

describe('durationText', () => {
  it('rounds to seconds, minutes, then hours and minutes', () => {
    expect(durationText(0.2)).toBe('1 s');
    expect(durationText(42)).toBe('42 s');
    expect(durationText(178)).toBe('3 min');
    expect(durationText(80 * 60)).toBe('80 min');
    expect(durationText(2 * 3600)).toBe('2 h');
    expect(durationText(3600 + 20 * 60 + 10)).toBe('80 min');
    expect(durationText(2 * 3600 + 20 * 60)).toBe('2 h 20 min');
  });
});

describe('expectedDuration', () => {
  it('divides the calls by the pace the provider kept on your last runs', () => {
    // 378 calls at 2.1 calls/s: 180 s.
    expect(expectedDuration(378, measured)).toEqual({
      value: 180,
      text: '≈ 3 min (from your last 4 runs on this provider, 2.1 calls/s)',
    });
    expect(expectedDuration(20, { ...measured, runs: 1, calls_per_second: 0.05 }).text).toBe(
      '≈ 7 min (from your last run on this provider, 0.050 calls/s)',
    );
  });

  it('names the optimizer whose runs gave the pace, or says none of them measured it', () => {
    const omega = { ...measured, optimizer: 'OMEGA', runs: 2, calls_per_second: 0.7 };
    expect(expectedDuration(378, { ...omega, pace_from: 'optimizer' }).text).toBe(
      '≈ 9 min (from your last 2 runs with OMEGA on this provider, 0.7 calls/s)',
    );
    expect(expectedDuration(378, { ...omega, pace_from: 'provider' }).text).toBe(
      '≈ 9 min (from your last 2 runs on this provider, 0.7 calls/s; none with OMEGA measured yet)',
    );
  });

  it("says what OMEGA's mutation and crossover calls cost, or that only their count is known", () => {
    const omega = { ...measured, optimizer: 'OMEGA', runs: 2, calls_per_second: 0.7 };
    expect(expectedDuration(378, { ...omega, pace_from: 'optimizer' }, 24).text).toBe(
      "≈ 9 min (from your last 2 runs with OMEGA on this provider, 0.7 calls/s; OMEGA's 24 mutation / crossover calls included in that pace)",
    );
    expect(expectedDuration(378, { ...omega, pace_from: 'provider' }, 24).text).toContain(
      "none with OMEGA measured yet; OMEGA's 24 mutation / crossover calls counted as predictions: from the call count only",
    );
    // The bundled model before any run: each mutation at the time of 7 predictions, measured.
    const first = { ...nothing, local: true, optimizer: 'OMEGA', prices: 'free' as const };
    const omegaFirst = expectedDuration(484, first, 24);
    expect(omegaFirst.value).toBeCloseTo((484 + 6 * 24) / 3.5);
    expect(omegaFirst.text).toContain(
      "OMEGA's 24 mutation / crossover calls counted as 7 predictions each, as measured on this model",
    );
    expect(expectedDuration(484, { ...first, optimizer: 'RandomFewShot' }, 0).value).toBeCloseTo(
      484 / 3.5,
    );
    // RandomFewShot makes no calls of its own: nothing to say.
    expect(expectedDuration(378, { ...measured, optimizer: 'RandomFewShot' }, 0).text).toBe(
      '≈ 3 min (from your last 4 runs on this provider, 2.1 calls/s; none with RandomFewShot measured yet)',
    );
  });

  it('says the duration is unknown without a finished run', () => {
    expect(expectedDuration(378, nothing)).toEqual({
      value: null,
      text: 'no finished run on this provider yet: duration unknown',
    });
  });

  it("gives a newcomer's first run on the bundled model its measured pace, saying whose", () => {
    // The demo's 484 calls at 3.5 calls/s: 138 s.
    const first = expectedDuration(484, { ...nothing, local: true, prices: 'free' });
    expect(first.value).toBeCloseTo(138.3, 1);
    expect(first.text).toBe(
      "≈ 2 min (the bundled model's pace on 2 cores, 3.5 calls/s; your own runs will replace it)",
    );
    // Once a run of the user's measured it, that pace wins.
    expect(expectedDuration(378, { ...measured, local: true }).text).toBe(
      '≈ 3 min (from your last 4 runs on this provider, 2.1 calls/s)',
    );
  });
});

describe('expectedTokens', () => {
  it('multiplies the calls by the tokens per call observed, naming whose runs', () => {
    expect(expectedTokens(400, measured)).toEqual({
      value: 60_000,
      text: '≈ 60,000 tokens (150 per call, from your last 3 runs of this program on this provider)',
    });
    expect(expectedTokens(400, { ...measured, tokens_from: 'provider' }).text).toContain(
      'from your last 3 runs on this provider)',
    );
    const omega = { ...measured, optimizer: 'OMEGA' };
    expect(expectedTokens(400, { ...omega, tokens_from: 'program_optimizer' }).text).toContain(
      'from your last 3 runs of this program with OMEGA on this provider)',
    );
    expect(expectedTokens(400, { ...omega, tokens_from: 'optimizer' }).text).toContain(
      'from your last 3 runs with OMEGA on this provider)',
    );
  });

  it('says the tokens are unknown when no run reported them', () => {
    expect(expectedTokens(400, nothing).value).toBeNull();
    expect(expectedTokens(400, nothing).text).toContain('tokens unknown');
  });
});

describe('expectedCost', () => {
  it('prices the tokens at the cost per token litellm charged on the last runs', () => {
    const cost = expectedCost(60_000, measured);
    expect(cost.value).toBeCloseTo(0.09);
    expect(cost.text).toBe(
      '≈ $0.09 ($1.50 per million tokens, as litellm priced your last 4 runs on this provider)',
    );
  });

  it('shows $0 for the bundled model, and no figure where there are no prices', () => {
    const free = { ...measured, prices: 'free' as const, cost_per_token: 0 };
    expect(expectedCost(60_000, free)).toEqual({
      value: 0,
      text: '$0: the bundled model costs nothing',
    });
    const unpriced = { ...measured, prices: 'unknown' as const, cost_per_token: null };
    expect(expectedCost(60_000, unpriced)).toEqual({
      value: null,
      text: "litellm has no prices for this provider's model: cost unknown",
    });
    expect(expectedCost(null, nothing).text).toBe(
      'no priced run on this provider yet: cost unknown',
    );
  });
});

describe('plannedUsage', () => {
  it('has tokens and cost where measured, else calls alone', () => {
    const planned = plannedUsage(400, measured);
    expect(planned).toMatchObject({ calls: 400, tokens: 60_000 });
    expect(planned.cost).toBeCloseTo(0.09);
    expect(plannedUsage(400, nothing)).toEqual({ calls: 400, tokens: null, cost: null });
    expect(plannedUsage(400, null)).toEqual({ calls: 400 });
  });
});
