import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { components } from '@/lib/api/schema';

export type AuthConfig = components['schemas']['AuthConfig'];

export const authConfigKey = ['auth', 'config'] as const;

/** What the sign-in page offers: sign-up, and the demo account in the embedded studio. */
export async function fetchAuthConfig(): Promise<AuthConfig> {
  return unwrap(await api.GET('/api/auth/config/'));
}

export function useAuthConfig() {
  return useQuery({ queryKey: authConfigKey, queryFn: fetchAuthConfig, staleTime: 60_000 });
}
