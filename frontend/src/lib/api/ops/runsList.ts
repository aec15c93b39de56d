import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { Page } from '../pagination';
import type { operations } from '../schema';
import type { Run } from '../types';

export const runsKey = ['runs'] as const;

const ACTIVE = new Set(['queued', 'running']);

/** The user's runs, newest first (first page: 50); polls while one is active. */
export async function listRuns(): Promise<Run[]> {
  return unwrap(await api.GET('/api/runs/', { params: { query: { page: 1 } } })).results;
}

export function useRuns() {
  return useQuery({
    queryKey: runsKey,
    queryFn: listRuns,
    refetchInterval: (query) =>
      query.state.data?.some((run) => ACTIVE.has(run.state)) ? 3000 : false,
  });
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

export function useRunsPage(page: number, filters: RunFilters = {}) {
  return useQuery({
    queryKey: [...runsKey, 'page', page, filters],
    queryFn: () => listRunsPage(page, filters),
    placeholderData: keepPreviousData,
    refetchInterval: (query: { state: { data?: Page<Run> } }) =>
      query.state.data?.results.some((run) => ACTIVE.has(run.state)) ? 3000 : false,
  });
}
