import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { epochCurves } from '../model/runView';
import { useRunEvents } from './useRunEvents';

const sockets: FakeSocket[] = [];
class FakeSocket {
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  constructor(readonly url: string) {
    sockets.push(this);
  }
  send(message: object) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  close() {}
}

afterEach(() => {
  vi.unstubAllGlobals();
  sockets.length = 0;
});

const epoch = (seq: number, n: number, reward: number) => ({
  type: 'event',
  run: 4,
  seq,
  kind: 'epoch',
  payload: { epoch: n, logs: { reward, val_reward: reward - 0.1 } },
});

describe('useRunEvents', () => {
  it('shows the replayed history, then live epochs, from one socket', async () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const { result } = renderHook(() => useRunEvents(4));
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.url).toContain('/ws/runs/4/?after=0');
    act(() => {
      sockets[0]!.onopen?.();
      sockets[0]!.send({
        type: 'event',
        run: 4,
        seq: 1,
        kind: 'state',
        payload: { state: 'running' },
      });
      sockets[0]!.send(epoch(2, 0, 0.3));
      sockets[0]!.send({ type: 'replayed', last_seq: 2 });
    });
    expect(result.current.replayed).toBe(true);
    expect(result.current.view.state).toBe('running');
    act(() => sockets[0]!.send(epoch(3, 1, 0.6)));
    await waitFor(() => expect(result.current.view.epochLogs.size).toBe(2));
    expect(epochCurves(result.current.view).series.map((s) => [s.name, s.data])).toEqual([
      ['reward', [0.3, 0.6]],
      ['val_reward', [0.19999999999999998, 0.5]],
    ]);
  });
});
