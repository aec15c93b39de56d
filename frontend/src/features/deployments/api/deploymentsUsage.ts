import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { deploymentKey } from './deploymentsRetrieve';
import type { Usage } from './types';

/** Usage totals (all, API calls, batch jobs) and per day. */
export async function getUsage(name: string): Promise<Usage> {
  return unwrap(await api.GET('/api/deployments/{name}/usage/', { params: { path: { name } } }));
}

export function useUsage(name: string) {
  return useQuery({ queryKey: [...deploymentKey(name), 'usage'], queryFn: () => getUsage(name) });
}
