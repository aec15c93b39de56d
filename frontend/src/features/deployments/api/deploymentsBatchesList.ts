import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentKey } from './deploymentsRetrieve';
import type { BatchJob } from './types';

export const batchesKey = (name: string) => [...deploymentKey(name), 'batches'] as const;

/** The deployment's batch predictions, newest first (first page: 50). */
export async function listBatches(name: string): Promise<BatchJob[]> {
  return unwrap(
    await api.GET('/api/deployments/{deployment_name}/batches/', {
      params: { path: { deployment_name: name }, query: { page: 1 } },
    }),
  ).results;
}

export function useBatches(name: string) {
  return useQuery({ queryKey: batchesKey(name), queryFn: () => listBatches(name) });
}
