import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { providersKey } from '@/lib/api/ops/providersList';
import type { Provider } from '@/lib/api/types';
import type { ProviderBody } from '@/lib/providers/providerForm';

/** Change a provider; an absent `api_key` keeps the stored one, `""` removes it. */
export async function updateProvider(id: number, body: ProviderBody): Promise<Provider> {
  return unwrap(await api.PATCH('/api/providers/{id}/', { params: { path: { id } }, body }));
}

export function useUpdateProvider() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: ProviderBody }) => updateProvider(id, body),
    onSuccess: () => client.invalidateQueries({ queryKey: providersKey }),
  });
}
