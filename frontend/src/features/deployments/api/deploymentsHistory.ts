import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentKey } from './deploymentsRetrieve';
import type { DeploymentTarget } from './types';

/** Every target the deployment served, newest first (deploy, switches, rollbacks). */
export async function getHistory(name: string): Promise<DeploymentTarget[]> {
  return unwrap(await api.GET('/api/deployments/{name}/history/', { params: { path: { name } } }));
}

export function useHistory(name: string) {
  return useQuery({
    queryKey: [...deploymentKey(name), 'history'],
    queryFn: () => getHistory(name),
  });
}
