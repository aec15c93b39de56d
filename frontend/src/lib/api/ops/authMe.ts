import { useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { User } from '../types';

export const meKey = ['auth', 'me'] as const;

/** The signed-in user, or null when nobody is (403 / 401). */
export async function fetchMe(): Promise<User | null> {
  const result = await api.GET('/api/auth/me/');
  if (result.response.status === 401 || result.response.status === 403) return null;
  return unwrap(result);
}

export function useMe() {
  return useQuery({ queryKey: meKey, queryFn: fetchMe, staleTime: 60_000, retry: false });
}
