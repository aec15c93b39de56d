import { useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
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
