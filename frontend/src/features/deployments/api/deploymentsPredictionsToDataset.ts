import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { datasetsKey } from '@/lib/api/ops/datasetsList';
import type { ToDatasetRequest, ToDatasetResult } from './types';

/** Add logged predictions (chosen, or every reviewed one of a filter) to a dataset. */
export async function predictionsToDataset(
  name: string,
  body: ToDatasetRequest,
): Promise<ToDatasetResult> {
  return unwrap(
    await api.POST('/api/deployments/{deployment_name}/predictions/to-dataset/', {
      params: { path: { deployment_name: name } },
      body,
    }),
  );
}

export function usePredictionsToDataset(name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ToDatasetRequest) => predictionsToDataset(name, body),
    onSuccess: () => client.invalidateQueries({ queryKey: datasetsKey }),
  });
}
