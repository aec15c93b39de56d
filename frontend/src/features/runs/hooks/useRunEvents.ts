import { useEffect, useState } from 'react';
import { followRun, type RunSocketStatus } from '@/lib/realtime/runSocket';
import { applyEvent, emptyView, type RunView } from '../model/runView';

export type RunEvents = {
  view: RunView;
  status: RunSocketStatus;
  /** True once the stored history has arrived (the rest is live). */
  replayed: boolean;
};

/**
 * A run's events as a view, from the one websocket: the whole history first (replayed
 * by the server), then live events. Every chart of the run page reads from this.
 */
export function useRunEvents(runId: number | null): RunEvents {
  const [state, setState] = useState<RunEvents & { runId: number | null }>(() => initial(runId));
  useEffect(() => {
    if (runId === null) return;
    // Replayed events arrive in a burst: fold them into one state update per frame.
    let pending: Parameters<typeof applyEvent>[1][] = [];
    let frame: number | null = null;
    const flush = () => {
      frame = null;
      const batch = pending;
      pending = [];
      setState((s) => {
        const base = s.runId === runId ? s : initial(runId);
        return { ...base, view: batch.reduce(applyEvent, base.view) };
      });
    };
    const stop = followRun(runId, {
      onEvent: (event) => {
        pending.push(event);
        frame ??= requestAnimationFrame(flush);
      },
      onReplayed: () => {
        if (frame !== null) cancelAnimationFrame(frame);
        flush();
        setState((s) => ({ ...(s.runId === runId ? s : initial(runId)), replayed: true }));
      },
      onStatus: (status) =>
        setState((s) => ({ ...(s.runId === runId ? s : initial(runId)), status })),
    });
    return () => {
      if (frame !== null) cancelAnimationFrame(frame);
      stop();
    };
  }, [runId]);
  // Until the new run's first message, a changed runId shows an empty view, not the old run.
  return state.runId === runId ? state : initial(runId);
}

function initial(runId: number | null): RunEvents & { runId: number | null } {
  return { runId, view: emptyView(), status: 'connecting', replayed: false };
}
