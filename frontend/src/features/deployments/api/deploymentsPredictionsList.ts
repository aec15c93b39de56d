import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentKey } from './deploymentsRetrieve';
import type { PredictionFilters, PredictionLogPage } from './types';

export const predictionsKey = (name: string) => [...deploymentKey(name), 'predictions'] as const;
export const predictionsPageKey = (
  name: string,
  filters: PredictionFilters,
  cursor: string | null,
) => [...predictionsKey(name), filters, cursor] as const;

/** One page of the deployment's logged predictions, newest first, after `cursor`. */
export async function listPredictions(
  name: string,
  filters: PredictionFilters,
  cursor: string | null,
): Promise<PredictionLogPage> {
  return unwrap(
    await api.GET('/api/deployments/{deployment_name}/predictions/', {
      params: {
        path: { deployment_name: name },
        query: { ...filters, ...(cursor ? { cursor } : {}) },
      },
    }),
  );
}

export function usePredictions(name: string, filters: PredictionFilters, cursor: string | null) {
  return useQuery({
    queryKey: predictionsPageKey(name, filters, cursor),
    queryFn: () => listPredictions(name, filters, cursor),
    placeholderData: keepPreviousData,
  });
}
