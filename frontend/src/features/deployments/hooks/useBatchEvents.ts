import { useEffect, useState } from 'react';
import {
  followStream,
  type RunSocketStatus,
  type StreamEventMessage,
} from '@/lib/realtime/runSocket';
import { applyBatchEvent, emptyProgress, type BatchProgress } from '../model/batchProgress';

type BatchEventMessage = StreamEventMessage & { batch: number };

export type BatchEvents = { progress: BatchProgress; status: RunSocketStatus };

/**
 * A batch prediction's progress, live from the one websocket module (`ws/batches/<id>/`):
 * its stored events first, then each chunk as the worker finishes it. `null`: follow nothing.
 */
export function useBatchEvents(batchId: number | null): BatchEvents {
  const [state, setState] = useState<BatchEvents & { id: number | null }>(() => initial(batchId));
  useEffect(() => {
    if (batchId === null) return;
    return followStream<BatchEventMessage>('batches', batchId, {
      onEvent: (event) =>
        setState((s) => {
          const base = s.id === batchId ? s : initial(batchId);
          return { ...base, progress: applyBatchEvent(base.progress, event) };
        }),
      onStatus: (status) =>
        setState((s) => ({ ...(s.id === batchId ? s : initial(batchId)), status })),
    });
  }, [batchId]);
  return state.id === batchId ? state : initial(batchId);
}

function initial(id: number | null): BatchEvents & { id: number | null } {
  return { id, progress: emptyProgress(), status: 'connecting' };
}
