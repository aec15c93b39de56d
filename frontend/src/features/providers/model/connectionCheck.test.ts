import { describe, expect, it } from 'vitest';
import { describeCheck } from './connectionCheck';

describe('describeCheck', () => {
  it('gives the answer with the latency', () => {
    expect(describeCheck({ ok: true, answer: 'ok', error: null, latency_s: 0.125 })).toBe(
      'Answered in 0.13 s: ok',
    );
  });

  it("gives the provider's reason when it failed", () => {
    expect(describeCheck({ ok: false, answer: null, error: 'boom', latency_s: 30 })).toBe(
      'Failed after 30.00 s: boom',
    );
    expect(describeCheck({ ok: false, answer: null, error: null, latency_s: 1 })).toBe(
      'Failed after 1.00 s: no reason given',
    );
  });
});
