import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';

/** Remove a DataModel from the account's library. */
export async function destroyDataModel(id: number): Promise<void> {
  const result = await api.DELETE('/api/data-models/{id}/', { params: { path: { id } } });
  if (result.response.status === 404) return; // already gone: what was wanted
  unwrap(result);
}

export function useDestroyDataModel() {
  return useMutation({ mutationFn: destroyDataModel });
}
