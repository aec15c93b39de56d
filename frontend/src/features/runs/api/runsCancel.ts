import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { Run, RunDetail } from '@/lib/api/types';
import { runKey } from './runsRetrieve';

/** Ask the worker to stop after the current batch (409 once the run has ended). */
export async function cancelRun(id: number): Promise<Run> {
  return unwrap(await api.POST('/api/runs/{id}/cancel/', { params: { path: { id } } }));
}

/**
 * Cancel a run. The cached run says `cancel_requested` at once (the page shows
 * "cancelling" until the worker stops and the final state arrives); a refusal puts it back.
 */
export function useCancelRun(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => cancelRun(id),
    onMutate: async () => {
      await client.cancelQueries({ queryKey: runKey(id) });
      const before = client.getQueryData<RunDetail>(runKey(id));
      if (before) client.setQueryData<RunDetail>(runKey(id), { ...before, cancel_requested: true });
      return { before };
    },
    onError: (_error, _vars, context) => {
      if (context?.before) client.setQueryData(runKey(id), context.before);
    },
    onSettled: () => client.invalidateQueries({ queryKey: runKey(id) }),
  });
}
