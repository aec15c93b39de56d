import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentsKey } from './deploymentsList';
import type { Deployment, TargetChoice } from './types';

/** Serve a run's trained program (or a version) under `name`. */
export async function createDeployment(name: string, target: TargetChoice): Promise<Deployment> {
  return unwrap(await api.POST('/api/deployments/', { body: { name, ...target } }));
}

export function useCreateDeployment() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ name, target }: { name: string; target: TargetChoice }) =>
      createDeployment(name, target),
    onSuccess: () => client.invalidateQueries({ queryKey: deploymentsKey }),
  });
}
