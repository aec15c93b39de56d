import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useBatchEvents } from './useBatchEvents';

/** The browser's WebSocket, replaced by one the test drives. */
class FakeSocket {
  static opened: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }
  deliver(message: object) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  close() {}
}

afterEach(() => {
  vi.unstubAllGlobals();
  FakeSocket.opened = [];
});

describe('useBatchEvents', () => {
  it("follows the job's stream on ws/batches/<id>/ and folds its events", () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const { result } = renderHook(() => useBatchEvents(9));
    const socket = FakeSocket.opened[0]!;
    expect(socket.url).toMatch(/\/ws\/batches\/9\/\?after=0$/);
    const event = (seq: number, kind: string, payload: object) =>
      socket.deliver({ type: 'event', batch: 9, seq, kind, payload });
    act(() => {
      socket.onopen?.();
      event(1, 'state', { state: 'running' });
      event(2, 'progress', { processed: 16, total: 40, failures: 0 });
      socket.deliver({ type: 'replayed', last_seq: 2 });
    });
    expect(result.current.status).toBe('open');
    expect(result.current.progress).toMatchObject({ state: 'running', processed: 16, total: 40 });
  });

  it('opens no socket for a job that is not followed', () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    renderHook(() => useBatchEvents(null));
    expect(FakeSocket.opened).toHaveLength(0);
  });
});
