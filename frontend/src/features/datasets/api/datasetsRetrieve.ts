import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { Dataset } from '@/lib/api/types';

export const datasetKey = (id: number) => ['datasets', id] as const;

/** One dataset with its row errors (the first ones; `errors_truncated` says when more). */
export async function fetchDataset(id: number): Promise<Dataset> {
  return unwrap(await api.GET('/api/datasets/{id}/', { params: { path: { id } } }));
}

/** Polls while the worker is still validating. */
export function useDataset(id: number | null) {
  return useQuery({
    queryKey: datasetKey(id ?? 0),
    queryFn: () => fetchDataset(id as number),
    enabled: id !== null,
    refetchInterval: (query) =>
      query.state.data?.status === 'uploaded' || query.state.data?.status === 'validating'
        ? 700
        : false,
  });
}
