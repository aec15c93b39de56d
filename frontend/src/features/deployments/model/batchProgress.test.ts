import { describe, expect, it } from 'vitest';
import { applyBatchEvent, emptyProgress, fraction, isActive } from './batchProgress';

const ev = (seq: number, kind: string, payload: Record<string, unknown>) => ({
  seq,
  kind,
  payload,
});

describe('batch progress', () => {
  it('follows state, progress and usage events', () => {
    const events = [
      ev(1, 'state', { state: 'queued' }),
      ev(2, 'state', { state: 'running', attempt: 1 }),
      ev(3, 'progress', { processed: 0, total: 40, failures: 0 }),
      ev(4, 'progress', { processed: 16, total: 40, failures: 1 }),
    ];
    const running = events.reduce(applyBatchEvent, emptyProgress());
    expect(running).toMatchObject({ state: 'running', processed: 16, total: 40, failures: 1 });
    expect(fraction(running)).toBeCloseTo(0.4);
    expect(isActive(running.state)).toBe(true);

    const done = [
      ev(5, 'progress', { processed: 40, total: 40, failures: 1 }),
      ev(6, 'usage', { calls: 39, cost: 0.01 }),
      ev(7, 'state', { state: 'succeeded' }),
    ].reduce(applyBatchEvent, running);
    expect(done).toMatchObject({ state: 'succeeded', processed: 40, calls: 39, cost: 0.01 });
    expect(fraction(done)).toBe(1);
    expect(isActive(done.state)).toBe(false);
  });

  it('keeps the reason of a failure, and no share before the total is known', () => {
    const failed = applyBatchEvent(
      emptyProgress(),
      ev(1, 'state', { state: 'failed', error: 'boom' }),
    );
    expect(failed).toMatchObject({ state: 'failed', error: 'boom' });
    expect(fraction(failed)).toBe(0);
  });
});
