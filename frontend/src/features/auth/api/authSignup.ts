import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { meKey } from '@/lib/api/ops/authMe';
import type { components } from '@/lib/api/schema';
import type { User } from '@/lib/api/types';

export type SignUp = components['schemas']['SignUpRequest'];

/** Register and open a session (Django checks CSRF, as for sign-in). */
export async function signUp(body: SignUp): Promise<User> {
  return unwrap(await api.POST('/api/auth/signup/', { body }));
}

export function useSignUp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: signUp,
    onSuccess: (user) => client.setQueryData(meKey, user),
  });
}
