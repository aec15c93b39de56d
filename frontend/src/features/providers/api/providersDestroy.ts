import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { ApiError } from '@/lib/api/errors';
import { providersKey } from '@/lib/api/ops/providersList';

/** Delete a provider. */
export async function deleteProvider(id: number): Promise<void> {
  const { error, response } = await api.DELETE('/api/providers/{id}/', {
    params: { path: { id } },
  });
  if (!response.ok) throw new ApiError(response.status, error);
}

export function useDeleteProvider() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteProvider,
    onSuccess: () => client.invalidateQueries({ queryKey: providersKey }),
  });
}
