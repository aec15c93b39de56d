import { useInfiniteQuery, useQueries, type UseQueryResult } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../client';
import { unwrap } from '../errors';
import type { components } from '../schema';

export type RunExamplePage = components['schemas']['RunExamplePage'];
/** A test row after training (studio/runs/compare.py `examples`). */
export type RunExample = {
  input: unknown;
  expected: unknown;
  output: unknown;
  /** The reward of `output` (the last evaluation after training; a failed row scores 0). */
  reward: number;
  error?: string | null;
  /** The row's reward before / after training (means over repeats); null if not stored. */
  before_reward: number | null;
  after_reward: number | null;
  /** What the reward said of `output` beside its score (ExactMatch's differing fields, a
   * judge's critique); null when it said nothing, absent on rows stored before feedback. */
  feedback?: string | null;
  /** What it said of the row's output before training (the last evaluation before). */
  before_feedback?: string | null;
  /** What each module got and said on the row, in call order (`TraceStep.as_json()`s;
   * `src/lib/trace/trace.ts` reads them); absent on rows stored before traces were. */
  trace?: unknown;
};

/** The run page's pages. */
export const EXAMPLES_PAGE_SIZE = 50;
/** The largest page the server gives (studio/runs/api/views.py `EXAMPLES_PAGE_MAX`). */
export const EXAMPLES_PAGE_MAX = 500;
export const examplesKey = (id: number) => ['runs', id, 'examples'] as const;

/** GET /api/runs/{id}/examples/: one page of the run's test rows after training. */
export async function fetchRunExamples(
  id: number,
  page: number,
  pageSize: number = EXAMPLES_PAGE_SIZE,
): Promise<RunExamplePage> {
  return unwrap(
    await api.GET('/api/runs/{id}/examples/', {
      params: { path: { id }, query: { page, page_size: pageSize } },
    }),
  );
}

/** The run's test rows, a page at a time (`fetchNextPage` for more); under the run's key. */
export function useRunExamples(id: number, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: examplesKey(id),
    queryFn: ({ pageParam }) => fetchRunExamples(id, pageParam),
    initialPageParam: 1,
    getNextPageParam: (last: RunExamplePage) =>
      last.page * last.page_size < last.count ? last.page + 1 : undefined,
    enabled,
  });
}

/** A run whose rows to read, and how many it stored (the compare endpoint's `example_count`). */
export type RunRowCount = { id: number; count: number };

export type EveryRunExamples = {
  /** Each run's rows in row order, once every page of it is in (absent until then). */
  byRun: ReadonlyMap<number, RunExample[]>;
  /** Rows in so far, of `total`. */
  loaded: number;
  total: number;
  /** The first page that failed, if one did. */
  error: Error | null;
};

// Module-level, so its combined value is recomputed only when a page changes.
const combinePages = (results: UseQueryResult<RunExamplePage>[]) => ({
  pages: results.map((result) => result.data),
  error: results.find((result) => result.error)?.error ?? null,
});

/**
 * Every test row of each of these runs: all their pages of `EXAMPLES_PAGE_MAX` rows asked for
 * at once (`count` says how many pages a run has), each page cached under the run's key. A
 * run stores its rows once, when training ends, so a page once read stays fresh.
 */
export function useEveryRunExamples(runs: readonly RunRowCount[]): EveryRunExamples {
  const pages = useMemo(
    () =>
      runs.flatMap((run) =>
        Array.from({ length: Math.ceil(run.count / EXAMPLES_PAGE_MAX) }, (_, index) => ({
          id: run.id,
          page: index + 1,
        })),
      ),
    [runs],
  );
  const { pages: data, error } = useQueries({
    queries: pages.map(({ id, page }) => ({
      queryKey: [...examplesKey(id), 'page', page, EXAMPLES_PAGE_MAX] as const,
      queryFn: () => fetchRunExamples(id, page, EXAMPLES_PAGE_MAX),
      staleTime: Infinity,
    })),
    combine: combinePages,
  });
  return useMemo(() => {
    const byRun = new Map<number, RunExample[]>();
    let loaded = 0;
    for (const run of runs) {
      const own = pages.flatMap(({ id }, index) => (id === run.id ? [data[index]] : []));
      const rows = own.flatMap((page) => (page?.results ?? []) as RunExample[]);
      loaded += rows.length;
      if (own.every((page) => page !== undefined)) byRun.set(run.id, rows);
    }
    const total = runs.reduce((sum, run) => sum + run.count, 0);
    return { byRun, loaded, total, error };
  }, [runs, pages, data, error]);
}
