import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { User } from '../types';
import { meKey } from './authMe';

export type Credentials = { username: string; password: string };

/** Open a session (Django checks CSRF: the client sends the cookie's token). */
export async function login(credentials: Credentials): Promise<User> {
  return unwrap(await api.POST('/api/auth/login/', { body: credentials }));
}

export function useLogin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: login,
    onSuccess: (user) => client.setQueryData(meKey, user),
  });
}
