import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { batchesKey } from './deploymentsBatchesList';
import type { BatchJob } from './types';

export type Split = 'all' | 'train' | 'test';

/** Queue a batch prediction of a dataset (one split) with the deployment's current program. */
export async function createBatch(name: string, dataset: number, split: Split): Promise<BatchJob> {
  return unwrap(
    await api.POST('/api/deployments/{deployment_name}/batches/', {
      params: { path: { deployment_name: name } },
      body: { dataset, split },
    }),
  );
}

export function useCreateBatch(name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ dataset, split }: { dataset: number; split: Split }) =>
      createBatch(name, dataset, split),
    onSuccess: () => client.invalidateQueries({ queryKey: batchesKey(name) }),
  });
}
