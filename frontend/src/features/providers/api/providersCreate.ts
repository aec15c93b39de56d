import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { providersKey } from '@/lib/api/ops/providersList';
import type { Provider } from '@/lib/api/types';
import type { ProviderBody } from '../model/providerForm';

/** Add a provider. */
export async function createProvider(body: ProviderBody): Promise<Provider> {
  return unwrap(await api.POST('/api/providers/', { body }));
}

export function useCreateProvider() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createProvider,
    onSuccess: () => client.invalidateQueries({ queryKey: providersKey }),
  });
}
