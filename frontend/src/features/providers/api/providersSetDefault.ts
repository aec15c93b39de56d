import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { providersKey } from '@/lib/api/ops/providersList';
import type { Provider } from '@/lib/api/types';

/** Make a provider the default of its kind. */
export async function setDefaultProvider(id: number): Promise<Provider> {
  return unwrap(await api.POST('/api/providers/{id}/set-default/', { params: { path: { id } } }));
}

export function useSetDefaultProvider() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: setDefaultProvider,
    onSuccess: () => client.invalidateQueries({ queryKey: providersKey }),
  });
}
