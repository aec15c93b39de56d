import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { predictionsKey } from './deploymentsPredictionsList';
import type { PredictionLog, PredictionReview } from './types';

/** Mark a logged prediction right or wrong, give its correct output, leave a note. */
export async function reviewPrediction(
  name: string,
  id: number,
  review: PredictionReview,
): Promise<PredictionLog> {
  return unwrap(
    await api.PATCH('/api/deployments/{deployment_name}/predictions/{prediction_id}/', {
      params: { path: { deployment_name: name, prediction_id: id } },
      body: review,
    }),
  );
}

export function useReviewPrediction(name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, review }: { id: number; review: PredictionReview }) =>
      reviewPrediction(name, id, review),
    onSuccess: () => client.invalidateQueries({ queryKey: predictionsKey(name) }),
  });
}
