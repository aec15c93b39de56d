import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { runsKey } from '@/lib/api/ops/runsList';
import type { Run, RunCreateRequest } from '@/lib/api/types';

/** Queue a training run (the server checks both configs by building them). */
export async function createRun(body: RunCreateRequest): Promise<Run> {
  return unwrap(await api.POST('/api/runs/', { body }));
}

export function useCreateRun() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createRun,
    onSuccess: () => client.invalidateQueries({ queryKey: runsKey }),
  });
}
