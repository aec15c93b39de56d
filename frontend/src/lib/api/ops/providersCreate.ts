import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { providersKey } from '@/lib/api/ops/providersList';
import type { Provider } from '@/lib/api/types';

/** What a new provider needs; kind defaults to a language model, params to none. */
export type NewProvider = {
  name: string;
  model: string;
  api_base: string;
  kind?: 'language' | 'embedding';
  params?: Record<string, unknown>;
  api_key?: string | null;
};

/** Add a provider (used by the providers page and by run setup's quick add). */
export async function createProvider(body: NewProvider): Promise<Provider> {
  return unwrap(
    await api.POST('/api/providers/', { body: { kind: 'language', params: {}, ...body } }),
  );
}

export function useCreateProvider() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createProvider,
    onSuccess: () => client.invalidateQueries({ queryKey: providersKey }),
  });
}
