import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { Page } from '../pagination';
import type { DatasetSummary } from '../types';

export const datasetsKey = ['datasets'] as const;

export async function listDatasets(): Promise<DatasetSummary[]> {
  return unwrap(await api.GET('/api/datasets/', { params: { query: { page: 1 } } })).results;
}

/** The user's datasets; polls while one is still being validated. */
export function useDatasets() {
  return useQuery({
    queryKey: datasetsKey,
    queryFn: listDatasets,
    refetchInterval: (query) =>
      query.state.data?.some((d) => d.status === 'uploaded' || d.status === 'validating')
        ? 1000
        : false,
  });
}

/** One page of the list (50 a page), with the API's `count`, `next` and `previous`. */
export async function listDatasetsPage(page: number): Promise<Page<DatasetSummary>> {
  return unwrap(await api.GET('/api/datasets/', { params: { query: { page } } }));
}

export function useDatasetsPage(page: number) {
  return useQuery({
    queryKey: [...datasetsKey, 'page', page],
    queryFn: () => listDatasetsPage(page),
    placeholderData: keepPreviousData,
    refetchInterval: (query: { state: { data?: Page<DatasetSummary> } }) =>
      query.state.data?.results.some((d) => d.status === 'uploaded' || d.status === 'validating')
        ? 1000
        : false,
  });
}
