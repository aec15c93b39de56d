import { useEffect, useState } from 'react';
import {
  followStream,
  type EventStreamName,
  type StreamEvent,
  type StreamStatus,
} from './eventStream';

export type EventStream<V> = {
  /** What the events say so far, folded in seq order. */
  view: V;
  status: StreamStatus;
  /** True once the stored history has arrived (the rest is live). */
  replayed: boolean;
};

type Keyed<V> = EventStream<V> & { key: string | null };

/**
 * One object's event stream (a run's, a batch job's) folded into a view: the stored
 * history first (replayed by the server), then live events, from the one websocket
 * module. `fold` is pure (the same events always give the same view) and, with `empty`,
 * defined once at module level: a new function reopens the socket. `id` null: follow
 * nothing. A changed `id` shows `empty()` until the new stream's first message.
 */
export function useEventStream<V>(
  stream: EventStreamName,
  id: number | null,
  fold: (view: V, event: StreamEvent) => V,
  empty: () => V,
): EventStream<V> {
  const key = id === null ? null : `${stream}/${id}`;
  const [state, setState] = useState<Keyed<V>>(() => initial(key, empty));
  useEffect(() => {
    if (id === null) return;
    const here = `${stream}/${id}`;
    const current = (s: Keyed<V>) => (s.key === here ? s : initial(here, empty));
    // A replay arrives in a burst: fold it into one state update per frame.
    let pending: StreamEvent[] = [];
    let frame: number | null = null;
    const flush = () => {
      frame = null;
      const batch = pending;
      pending = [];
      if (batch.length === 0) return;
      setState((s) => {
        const base = current(s);
        return { ...base, view: batch.reduce(fold, base.view) };
      });
    };
    const stop = followStream(stream, id, {
      onEvent: (event) => {
        pending.push(event);
        frame ??= requestAnimationFrame(flush);
      },
      onReplayed: () => {
        if (frame !== null) cancelAnimationFrame(frame);
        flush();
        setState((s) => ({ ...current(s), replayed: true }));
      },
      onStatus: (status) => setState((s) => ({ ...current(s), status })),
    });
    return () => {
      if (frame !== null) cancelAnimationFrame(frame);
      stop();
    };
  }, [stream, id, fold, empty]);
  return state.key === key ? state : initial(key, empty);
}

function initial<V>(key: string | null, empty: () => V): Keyed<V> {
  return { key, view: empty(), status: 'connecting', replayed: false };
}
