import { create } from 'zustand';

/** What the last "Try it" run did per module, for the canvas: ok or failed, and the one in focus. */
type TryTraceState = {
  status: Record<string, 'ok' | 'error'>;
  focused: string | null;
};

export const useTryTrace = create<TryTraceState>()(() => ({ status: {}, focused: null }));
