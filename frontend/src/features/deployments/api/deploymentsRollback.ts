import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentsKey } from './deploymentsList';
import { deploymentKey } from './deploymentsRetrieve';
import type { Deployment } from './types';

/** Serve the previous target again (a second rollback undoes the first). */
export async function rollbackDeployment(name: string): Promise<Deployment> {
  return unwrap(
    await api.POST('/api/deployments/{name}/rollback/', { params: { path: { name } } }),
  );
}

export function useRollbackDeployment(name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => rollbackDeployment(name),
    onSuccess: (deployment) => {
      client.setQueryData(deploymentKey(name), deployment);
      return client.invalidateQueries({ queryKey: deploymentsKey });
    },
  });
}
