import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentsKey } from './deploymentsList';
import { deploymentKey } from './deploymentsRetrieve';
import type { Deployment, TargetChoice } from './types';

/** Serve another run's program (or a version) from now on; the current one becomes previous. */
export async function switchDeployment(name: string, target: TargetChoice): Promise<Deployment> {
  return unwrap(
    await api.POST('/api/deployments/{name}/switch/', {
      params: { path: { name } },
      body: target,
    }),
  );
}

export function useSwitchDeployment(name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (target: TargetChoice) => switchDeployment(name, target),
    onSuccess: (deployment) => {
      client.setQueryData(deploymentKey(name), deployment);
      return client.invalidateQueries({ queryKey: deploymentsKey });
    },
  });
}
