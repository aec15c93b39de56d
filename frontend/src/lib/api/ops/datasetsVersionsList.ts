import { useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { components } from '../schema';

export type DatasetVersion = components['schemas']['DatasetVersion'];

/** Under the datasets' key: what moves the dataset list moves its versions too. */
export const datasetVersionsKey = (id: number) => ['datasets', id, 'versions'] as const;

/** A dataset's versions, newest first, each with its counts, digest and diff counts. */
export async function fetchVersions(id: number): Promise<DatasetVersion[]> {
  return unwrap(await api.GET('/api/datasets/{id}/versions/', { params: { path: { id } } }));
}

/**
 * The versions of dataset `id` (none asked while it is null); polls while version 1's
 * row index (its digest) is being built in the background.
 */
export function useDatasetVersions(id: number | null) {
  return useQuery({
    queryKey: datasetVersionsKey(id ?? 0),
    queryFn: () => fetchVersions(id as number),
    enabled: id !== null,
    refetchInterval: (query) =>
      query.state.data?.some((version) => version.digest === null) ? 1500 : false,
  });
}
