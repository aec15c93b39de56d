import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../client';
import { meKey } from './authMe';

export async function logout(): Promise<void> {
  await api.POST('/api/auth/logout/');
}

export function useLogout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSuccess: () => {
      client.clear();
      client.setQueryData(meKey, null);
    },
  });
}
