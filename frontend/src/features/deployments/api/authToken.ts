import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { components } from '@/lib/api/schema';

// Signed in, the endpoint needs no credentials in the body (the session is enough).
const SIGNED_IN = {} as components['schemas']['LoginRequest'];

/** The signed-in user's API token (what scripts send as `Authorization: Token <key>`). */
export async function getToken(): Promise<string> {
  return unwrap(await api.POST('/api/auth/token/', { body: SIGNED_IN })).token;
}

export function useToken() {
  return useMutation({ mutationFn: getToken });
}
