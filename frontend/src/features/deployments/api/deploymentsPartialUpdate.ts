import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentsKey } from './deploymentsList';
import { deploymentKey } from './deploymentsRetrieve';
import type { Deployment, DeploymentSettings } from './types';

/** Change a deployment's settings (the largest input it takes); it keeps serving its target. */
export async function updateDeployment(
  name: string,
  settings: DeploymentSettings,
): Promise<Deployment> {
  return unwrap(
    await api.PATCH('/api/deployments/{name}/', {
      params: { path: { name } },
      body: settings,
    }),
  );
}

export function useUpdateDeployment(name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (settings: DeploymentSettings) => updateDeployment(name, settings),
    onSuccess: (deployment) => {
      client.setQueryData(deploymentKey(name), deployment);
      return client.invalidateQueries({ queryKey: deploymentsKey });
    },
  });
}
