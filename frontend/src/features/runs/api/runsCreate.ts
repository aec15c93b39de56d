import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { runsKey } from '@/lib/api/ops/runsList';
import type { Run } from '@/lib/api/types';

export type NewRun = {
  name: string;
  program_version: number;
  dataset: number;
  provider: number;
  compile_config: unknown;
  fit_config: unknown;
};

/** Queue a training run (the server checks both configs by building them). */
export async function createRun(body: NewRun): Promise<Run> {
  return unwrap(await api.POST('/api/runs/', { body }));
}

export function useCreateRun() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createRun,
    onSuccess: () => client.invalidateQueries({ queryKey: runsKey }),
  });
}
