import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { providersKey } from '@/lib/api/ops/providersList';
import type { Provider } from '@/lib/api/types';

export type NewProvider = { name: string; model: string; api_base: string; api_key?: string };

/** Add a language-model provider (an OpenAI-compatible server, or a hosted model). */
export async function createProvider(body: NewProvider): Promise<Provider> {
  return unwrap(
    await api.POST('/api/providers/', {
      body: { kind: 'language', params: {}, is_default: false, ...body },
    }),
  );
}

export function useCreateProvider() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createProvider,
    onSuccess: () => client.invalidateQueries({ queryKey: providersKey }),
  });
}
