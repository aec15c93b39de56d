import { describe, expect, it } from 'vitest';
import { firstSamplingProblem, parseSampling, samplingProblem, samplingText } from './sampling';

describe('samplingProblem', () => {
  it('takes what the engine takes, and "not set"', () => {
    expect(samplingProblem('temperature', 0)).toBeNull();
    expect(samplingProblem('max_tokens', 1)).toBeNull();
    expect(samplingProblem('top_p', 1)).toBeNull();
    expect(samplingProblem('top_p', 0.05)).toBeNull();
    expect(samplingProblem('top_k', 40)).toBeNull();
    expect(samplingProblem('reasoning_effort', 'high')).toBeNull();
    expect(samplingProblem('top_k', null)).toBeNull();
    expect(samplingProblem('reasoning_effort', undefined)).toBeNull();
  });

  it('refuses what check_sampling refuses', () => {
    expect(samplingProblem('temperature', -0.1)).toBe('must be a number >= 0');
    expect(samplingProblem('max_tokens', 0)).toBe('must be a whole number >= 1');
    expect(samplingProblem('max_tokens', 2.5)).toBe('must be a whole number >= 1');
    expect(samplingProblem('top_k', '5')).toBe('must be a whole number >= 1');
    expect(samplingProblem('top_p', 0)).toBe('must be a number above 0 and at most 1');
    expect(samplingProblem('top_p', 1.5)).toBe('must be a number above 0 and at most 1');
    expect(samplingProblem('reasoning_effort', 'extreme')).toBe(
      'must be one of minimal, low, medium, high, disable, none',
    );
  });
});

describe('firstSamplingProblem', () => {
  it('names the first bad setting of a patch, and ignores the rest of the config', () => {
    expect(firstSamplingProblem({ name: 'x', top_p: 0.9, top_k: 3 })).toBeNull();
    expect(firstSamplingProblem({ top_k: 3, top_p: 1.5 })).toBe(
      "Top p must be a number above 0 and at most 1 (empty: the provider's default).",
    );
  });
});

describe('parseSampling', () => {
  it('reads empty as not set and a number as itself', () => {
    expect(parseSampling('max_tokens', '  ')).toEqual({ ok: true, value: null });
    expect(parseSampling('top_p', ' 0.9 ')).toEqual({ ok: true, value: 0.9 });
    // Range is the action's to check: the number comes through as typed.
    expect(parseSampling('top_p', '1.5')).toEqual({ ok: true, value: 1.5 });
  });

  it('refuses text that is not a number, naming the setting', () => {
    expect(parseSampling('top_k', 'many')).toEqual({
      ok: false,
      reason: 'Top k must be a number.',
    });
    expect(parseSampling('temperature', 'Infinity')).toEqual({
      ok: false,
      reason: 'Temperature must be a number.',
    });
  });

  it('shows a set value and leaves an unset one empty', () => {
    expect(samplingText(0)).toBe('0');
    expect(samplingText(null)).toBe('');
    expect(samplingText(undefined)).toBe('');
  });
});
