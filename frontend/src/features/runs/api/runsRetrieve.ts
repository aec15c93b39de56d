import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { RunDetail } from '@/lib/api/types';

export const runKey = (id: number) => ['runs', id] as const;

export async function fetchRun(id: number): Promise<RunDetail> {
  return unwrap(await api.GET('/api/runs/{id}/', { params: { path: { id } } }));
}

export function useRun(id: number) {
  return useQuery({ queryKey: runKey(id), queryFn: () => fetchRun(id) });
}
