import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { CompareData } from '../model/compareData';

/** Curves, before / after, per-example results and trained variables of 1 to 8 runs. */
export async function fetchCompare(ids: number[]): Promise<CompareData> {
  const data = unwrap(
    await api.GET('/api/runs/compare/', { params: { query: { ids: ids.join(',') } } }),
  );
  return data as unknown as CompareData;
}

export function useCompare(ids: number[]) {
  return useQuery({
    queryKey: ['runs', 'compare', ids.join(',')],
    queryFn: () => fetchCompare(ids),
    enabled: ids.length > 0,
  });
}
