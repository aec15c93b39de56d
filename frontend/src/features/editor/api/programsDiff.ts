import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { Diff } from '@/lib/api/types';

/** What changed between two versions: a summary and every changed path. */
export async function fetchDiff(programId: number, from: number, to: number): Promise<Diff> {
  return unwrap(
    await api.GET('/api/programs/{id}/diff/', {
      params: { path: { id: programId }, query: { from, to } },
    }),
  );
}

export function useDiff(programId: number, from: number | null, to: number | null) {
  return useQuery({
    queryKey: ['programs', programId, 'diff', from, to],
    queryFn: () => fetchDiff(programId, from as number, to as number),
    enabled: from !== null && to !== null && from !== to,
    staleTime: Infinity,
  });
}
