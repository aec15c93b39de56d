/**
 * A batch prediction's events (`ws/batches/<id>/`) folded into what its row shows:
 * `state` ({state, error?}), `progress` ({processed, total, failures}), `usage`.
 */
export type BatchEvent = { seq: number; kind: string; payload: Record<string, unknown> };

export type BatchProgress = {
  state: string | null;
  processed: number;
  total: number;
  failures: number;
  error: string | null;
  calls: number | null;
  cost: number | null;
};

export const emptyProgress = (): BatchProgress => ({
  state: null,
  processed: 0,
  total: 0,
  failures: 0,
  error: null,
  calls: null,
  cost: null,
});

const num = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);

export function applyBatchEvent(progress: BatchProgress, event: BatchEvent): BatchProgress {
  const p = event.payload;
  switch (event.kind) {
    case 'state':
      return {
        ...progress,
        state: typeof p.state === 'string' ? p.state : progress.state,
        error: typeof p.error === 'string' ? p.error : progress.error,
      };
    case 'progress':
      return {
        ...progress,
        processed: num(p.processed, progress.processed),
        total: num(p.total, progress.total),
        failures: num(p.failures, progress.failures),
      };
    case 'usage':
      return { ...progress, calls: num(p.calls, 0), cost: num(p.cost, 0) };
    default:
      return progress;
  }
}

/** The share done, 0 to 1 (0 while the total is unknown). */
export function fraction(progress: Pick<BatchProgress, 'processed' | 'total'>): number {
  return progress.total > 0 ? Math.min(1, progress.processed / progress.total) : 0;
}

export const isActive = (state: string | null | undefined) =>
  state === 'queued' || state === 'running';
