import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { Run } from '@/lib/api/types';
import { runKey } from './runsRetrieve';

/** Ask the worker to stop after the current batch (409 once the run has ended). */
export async function cancelRun(id: number): Promise<Run> {
  return unwrap(await api.POST('/api/runs/{id}/cancel/', { params: { path: { id } } }));
}

export function useCancelRun(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => cancelRun(id),
    onSuccess: () => client.invalidateQueries({ queryKey: runKey(id) }),
  });
}
