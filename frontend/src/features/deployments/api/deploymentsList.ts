import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { Deployment } from './types';

export const deploymentsKey = ['deployments'] as const;

/** The user's deployments, most recently changed first (the first page: 50). */
export async function listDeployments(): Promise<Deployment[]> {
  return unwrap(await api.GET('/api/deployments/', { params: { query: { page: 1 } } })).results;
}

export function useDeployments() {
  return useQuery({ queryKey: deploymentsKey, queryFn: listDeployments });
}
