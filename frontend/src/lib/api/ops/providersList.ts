import { useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { Provider } from '../types';

export const providersKey = ['providers'] as const;

export async function listProviders(): Promise<Provider[]> {
  return unwrap(await api.GET('/api/providers/', { params: { query: { page: 1 } } })).results;
}

export function useProviders() {
  return useQuery({ queryKey: providersKey, queryFn: listProviders });
}
