import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { datasetsKey } from '@/lib/api/ops/datasetsList';
import {
  datasetVersionsKey,
  useDatasetVersions,
  type DatasetVersion,
} from '@/lib/api/ops/datasetsVersionsList';
import type { components } from '@/lib/api/schema';

type S = components['schemas'];
export type VersionRows = S['VersionRows'];
export type VersionDiff = S['VersionDiff'];
export type VersionCreate = S['DatasetVersionCreateRequest'];

// The versions list lives in lib: the run form picks a version to train on too.
export type { DatasetVersion };
export const useVersions = useDatasetVersions;

export type RowsQuery = { split?: 'train' | 'test'; offset: number; limit: number };

/** One page of a version's rows (row ids are kept across versions). */
export async function fetchVersionRows(
  id: number,
  number: number,
  query: RowsQuery,
): Promise<VersionRows> {
  return unwrap(
    await api.GET('/api/datasets/{id}/versions/{number}/rows/', {
      params: { path: { id, number }, query },
    }),
  );
}

export function useVersionRows(id: number, number: number | null, query: RowsQuery) {
  return useQuery({
    queryKey: [...datasetVersionsKey(id), number ?? 0, 'rows', query],
    queryFn: () => fetchVersionRows(id, number as number, query),
    enabled: number !== null,
    placeholderData: keepPreviousData,
  });
}

/** What a version changed against its parent: counts and the first rows of each kind. */
export async function fetchVersionDiff(id: number, number: number): Promise<VersionDiff> {
  return unwrap(
    await api.GET('/api/datasets/{id}/versions/{number}/diff/', {
      params: { path: { id, number } },
    }),
  );
}

export function useVersionDiff(id: number, number: number | null) {
  return useQuery({
    queryKey: [...datasetVersionsKey(id), number ?? 0, 'diff'],
    queryFn: () => fetchVersionDiff(id, number as number),
    enabled: number !== null && number > 1,
  });
}

/** A new version from a parent with rows added, removed and edited (400s name each row). */
export async function createVersion(id: number, body: VersionCreate): Promise<DatasetVersion> {
  return unwrap(await api.POST('/api/datasets/{id}/versions/', { params: { path: { id } }, body }));
}

export function useCreateVersion(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: VersionCreate) => createVersion(id, body),
    // The dataset list (its latest version), the dataset and its versions all move.
    onSuccess: () => client.invalidateQueries({ queryKey: datasetsKey }),
  });
}
