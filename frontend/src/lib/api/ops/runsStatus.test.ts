import { describe, expect, it } from 'vitest';
import type { Run, RunStatus } from '../types';
import { stateChanged, withStatuses } from './runsStatus';

const run = (id: number, state: string, over: Partial<Run> = {}) =>
  ({ id, state, current_epoch: 0, usage: { calls: 1, cost: 0.5 }, ...over }) as Run;
const status = (id: number, state: RunStatus['state'], calls: number | null = 9): RunStatus => ({
  id,
  state,
  progress: { epoch: 2, epochs: 3, calls, tokens: null, cost: null },
  updated_at: '2026-12-01T00:00:00Z',
});

describe('withStatuses', () => {
  it('shows an active run with the state and progress of its status', () => {
    const [shown] = withStatuses([run(1, 'queued')], [status(1, 'running')]);
    expect(shown).toMatchObject({ state: 'running', current_epoch: 2 });
    // What the status does not know (null) stays as the list said.
    expect(shown!.usage).toEqual({ calls: 9, cost: 0.5 });
  });

  it('keeps a finished run as the list says, however old the status', () => {
    const done = run(1, 'succeeded', { current_epoch: 3 });
    expect(withStatuses([done], [status(1, 'running')])).toEqual([done]);
  });
});

describe('stateChanged', () => {
  it('is true when a run the list shows as active is in another state now', () => {
    expect(stateChanged([run(1, 'running')], [status(1, 'succeeded')])).toBe(true);
    expect(stateChanged([run(1, 'queued')], [status(1, 'running')])).toBe(true);
  });

  it('is false for progress alone, an old status of a finished run, or a run not listed', () => {
    expect(stateChanged([run(1, 'running')], [status(1, 'running', 50)])).toBe(false);
    expect(stateChanged([run(1, 'succeeded')], [status(1, 'running')])).toBe(false);
    expect(stateChanged([run(1, 'running')], [status(2, 'failed')])).toBe(false);
  });
});
