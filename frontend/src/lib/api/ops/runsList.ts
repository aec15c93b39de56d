import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../client';
import { unwrap } from '../errors';
import type { Page } from '../pagination';
import type { operations } from '../schema';
import type { Run } from '../types';
import { useLiveRuns } from './runsStatus';

export const runsKey = ['runs'] as const;

/**
 * The user's runs, newest first (first page: 50). While one is active its light status is
 * polled, not the list (`useLiveRuns`).
 */
export async function listRuns(): Promise<Run[]> {
  return unwrap(await api.GET('/api/runs/', { params: { query: { page: 1 } } })).results;
}

export function useRuns() {
  const query = useQuery({ queryKey: runsKey, queryFn: listRuns });
  const data = useLiveRuns(query.data, runsKey);
  return { ...query, data };
}

/** What the server narrows the list to (each scoped to the user's own rows). */
export type RunFilters = {
  program?: number;
  dataset?: number;
  /** The optimizer named in `compile_config` (any case). */
  optimizer?: string;
  state?: NonNullable<NonNullable<operations['runs_list']['parameters']['query']>['state']>;
};

/** One page of the list (50 a page), with the API's `count`, `next` and `previous`. */
export async function listRunsPage(page: number, filters: RunFilters = {}): Promise<Page<Run>> {
  return unwrap(await api.GET('/api/runs/', { params: { query: { page, ...filters } } }));
}

/**
 * One page of the list. While a run on it is queued or running, its state and progress come
 * from the light status read every 3 s; the page itself is fetched again once a state changes.
 */
export function useRunsPage(page: number, filters: RunFilters = {}) {
  const queryKey = [...runsKey, 'page', page, filters] as const;
  const query = useQuery({
    queryKey,
    queryFn: () => listRunsPage(page, filters),
    placeholderData: keepPreviousData,
  });
  const results = useLiveRuns(query.data?.results, queryKey);
  const data = useMemo(
    () => (query.data && results ? { ...query.data, results } : query.data),
    [query.data, results],
  );
  return { ...query, data };
}
