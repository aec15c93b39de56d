import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentsKey } from './deploymentsList';
import type { Deployment } from './types';

export const deploymentKey = (name: string) => [...deploymentsKey, name] as const;

/** One deployment: its target, the previous one, its predict URL and usage totals. */
export async function getDeployment(name: string): Promise<Deployment> {
  return unwrap(await api.GET('/api/deployments/{name}/', { params: { path: { name } } }));
}

export function useDeployment(name: string) {
  return useQuery({ queryKey: deploymentKey(name), queryFn: () => getDeployment(name) });
}
