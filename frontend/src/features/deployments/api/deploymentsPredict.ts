import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentKey } from './deploymentsRetrieve';
import type { PredictResult } from './types';

/** Call the deployment once, as a script would (the browser sends its session). */
export async function predict(name: string, input: unknown): Promise<PredictResult> {
  return unwrap(
    await api.POST('/api/deployments/{name}/predict/', {
      params: { path: { name } },
      body: { input },
    }),
  );
}

export function usePredict(name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: unknown) => predict(name, input),
    // The call counts in the usage shown.
    onSettled: () => client.invalidateQueries({ queryKey: deploymentKey(name) }),
  });
}
