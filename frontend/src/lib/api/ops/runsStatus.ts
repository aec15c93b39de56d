import { hashKey, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { api } from '../client';
import { unwrap } from '../errors';
import type { Run, RunStatus } from '../types';

/** States in which a run can still change: its status is polled while it is in one. */
export const ACTIVE_STATES: ReadonlySet<string> = new Set(['queued', 'running']);
export const STATUS_POLL_MS = 3000;
/** The most ids one status read takes (studio/runs/status.py); a list page holds 50. */
export const STATUS_IDS_MAX = 100;

/** The light status of these runs (state, epoch, LM calls and cost): about 160 bytes a run. */
export async function fetchRunStatuses(ids: number[]): Promise<RunStatus[]> {
  return unwrap(await api.GET('/api/runs/status/', { params: { query: { ids: ids.join(',') } } }));
}

/**
 * The runs with what their statuses say now. Only a run the list still shows as active
 * takes its status (a finished state is final: a list that says so is never behind).
 */
export function withStatuses(runs: Run[], statuses: RunStatus[] | undefined): Run[] {
  if (!statuses?.length) return runs;
  const byId = new Map(statuses.map((s) => [s.id, s]));
  return runs.map((run) => {
    const status = byId.get(run.id);
    if (!status || !ACTIVE_STATES.has(run.state)) return run;
    const { epoch, calls, tokens, cost } = status.progress;
    const usage = { ...((run.usage ?? {}) as Record<string, unknown>) };
    if (calls !== null) usage.calls = calls;
    if (tokens !== null) usage.total_tokens = tokens;
    if (cost !== null) usage.cost = cost;
    return { ...run, state: status.state, current_epoch: epoch, usage };
  });
}

/** Whether a status says a run the list shows as active is now in another state. */
export function stateChanged(runs: Run[], statuses: RunStatus[]): boolean {
  const shown = new Map(runs.map((run) => [run.id, run.state]));
  return statuses.some((s) => {
    const state = shown.get(s.id);
    return state !== undefined && ACTIVE_STATES.has(state) && state !== s.state;
  });
}

/**
 * A list of runs kept live without refetching it: while one of `runs` is queued or running,
 * polls their light status every 3 s (`GET /api/runs/status/?ids=`) and shows its state and
 * progress; when a state changes, refetches the list (`listKey`) once, for its figures.
 */
export function useLiveRuns(runs: Run[] | undefined, listKey: QueryKey): Run[] | undefined {
  const client = useQueryClient();
  const active = useMemo(
    () =>
      (runs ?? [])
        .filter((run) => ACTIVE_STATES.has(run.state))
        .map((run) => run.id)
        .slice(0, STATUS_IDS_MAX),
    [runs],
  );
  const statuses = useQuery({
    queryKey: [...listKey, 'status', active],
    queryFn: () => fetchRunStatuses(active),
    enabled: active.length > 0,
    refetchInterval: STATUS_POLL_MS,
  });
  const listHash = hashKey(listKey);
  useEffect(() => {
    if (!runs || !statuses.data || !stateChanged(runs, statuses.data)) return;
    // Not cancelRefetch: a refetch already under way is the one refetch.
    void client.invalidateQueries(
      { queryKey: JSON.parse(listHash) as QueryKey, exact: true },
      { cancelRefetch: false },
    );
  }, [runs, statuses.data, client, listHash]);
  return useMemo(() => (runs ? withStatuses(runs, statuses.data) : runs), [runs, statuses.data]);
}
