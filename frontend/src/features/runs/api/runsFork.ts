import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { runsKey } from '@/lib/api/ops/runsList';
import type { Run } from '@/lib/api/types';

/** A new run that starts from this run's checkpoint at `epoch`. */
export async function forkRun(id: number, epoch: number, name = ''): Promise<Run> {
  return unwrap(
    await api.POST('/api/runs/{id}/fork/', {
      params: { path: { id } },
      body: { epoch, name, fit_config: null, compile_config: null },
    }),
  );
}

export function useForkRun(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ epoch, name }: { epoch: number; name?: string }) => forkRun(id, epoch, name),
    onSuccess: () => client.invalidateQueries({ queryKey: runsKey }),
  });
}
