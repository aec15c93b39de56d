import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket } from '@/test/fakeSocket';
import type { StreamEvent } from './eventStream';
import { useEventStream } from './useEventStream';

/** A stand-in view: the kinds of the events seen, in order. */
type Seen = { kinds: string[] };
const empty = (): Seen => ({ kinds: [] });
const fold = (view: Seen, event: StreamEvent): Seen => ({ kinds: [...view.kinds, event.kind] });

const event = (seq: number, kind: string) => ({ type: 'event', seq, kind, payload: {} });

beforeEach(() => vi.stubGlobal('WebSocket', FakeSocket));
afterEach(() => {
  vi.unstubAllGlobals();
  FakeSocket.reset();
});

describe('useEventStream', () => {
  it('folds the replayed history in one update, then live events, from one socket', async () => {
    let renders = 0;
    const { result } = renderHook(() => {
      renders += 1;
      return useEventStream('runs', 4, fold, empty);
    });
    expect(FakeSocket.opened).toHaveLength(1);
    const socket = FakeSocket.opened[0]!;
    expect(socket.url).toContain('/ws/runs/4/?after=0');
    const before = renders;
    act(() => {
      socket.onopen?.();
      for (let seq = 1; seq <= 50; seq += 1) socket.deliver(event(seq, 'batch'));
      socket.deliver({ type: 'replayed', last_seq: 50 });
    });
    expect(result.current.replayed).toBe(true);
    expect(result.current.status).toBe('open');
    expect(result.current.view.kinds).toHaveLength(50);
    // Fifty replayed events are not fifty renders.
    expect(renders - before).toBeLessThan(6);
    act(() => socket.deliver(event(51, 'epoch')));
    await waitFor(() => expect(result.current.view.kinds.at(-1)).toBe('epoch'));
  });

  it("follows a batch job's stream on ws/batches/<id>/", () => {
    const { result } = renderHook(() => useEventStream('batches', 9, fold, empty));
    const socket = FakeSocket.opened[0]!;
    expect(socket.url).toMatch(/\/ws\/batches\/9\/\?after=0$/);
    act(() => {
      socket.deliver(event(1, 'state'));
      socket.deliver({ type: 'replayed', last_seq: 1 });
    });
    expect(result.current.view.kinds).toEqual(['state']);
  });

  it('shows an empty view for a new id, never the previous stream, and closes the old socket', () => {
    const { result, rerender } = renderHook(({ id }) => useEventStream('runs', id, fold, empty), {
      initialProps: { id: 1 },
    });
    act(() => {
      FakeSocket.opened[0]!.deliver(event(1, 'state'));
      FakeSocket.opened[0]!.deliver({ type: 'replayed', last_seq: 1 });
    });
    expect(result.current.view.kinds).toEqual(['state']);
    rerender({ id: 2 });
    expect(FakeSocket.opened[0]!.closed).toBe(true);
    expect(FakeSocket.opened[1]!.url).toContain('/ws/runs/2/');
    expect(result.current.view.kinds).toEqual([]);
    expect(result.current.replayed).toBe(false);
  });

  it('opens no socket when it follows nothing', () => {
    const { result } = renderHook(() => useEventStream('batches', null, fold, empty));
    expect(FakeSocket.opened).toHaveLength(0);
    expect(result.current.view).toEqual(empty());
  });
});
