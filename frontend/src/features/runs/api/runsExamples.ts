import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { components } from '@/lib/api/schema';

export type RunExamplePage = components['schemas']['RunExamplePage'];
/** A test row after training (studio/runs/compare.py `examples`). */
export type RunExample = {
  input: unknown;
  expected: unknown;
  output: unknown;
  /** The reward of `output` (the last evaluation after training). */
  reward: number | null;
  error?: string | null;
  /** The row's reward before / after training (means over repeats); null if not stored. */
  before_reward: number | null;
  after_reward: number | null;
};

export const EXAMPLES_PAGE_SIZE = 50;
export const examplesKey = (id: number) => ['runs', id, 'examples'] as const;

/** GET /api/runs/{id}/examples/: one page of the run's test rows after training. */
export async function fetchRunExamples(id: number, page: number): Promise<RunExamplePage> {
  return unwrap(
    await api.GET('/api/runs/{id}/examples/', {
      params: { path: { id }, query: { page, page_size: EXAMPLES_PAGE_SIZE } },
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
