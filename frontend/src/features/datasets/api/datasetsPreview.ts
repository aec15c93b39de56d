import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { PreviewRow } from '@/lib/api/types';

/** The first rows as the engine reads them, each with its own errors. */
export async function fetchPreview(id: number, limit = 20): Promise<PreviewRow[]> {
  return unwrap(
    await api.GET('/api/datasets/{id}/preview/', {
      params: { path: { id }, query: { limit } },
    }),
  ).rows;
}

export function usePreview(id: number | null, enabled: boolean) {
  return useQuery({
    queryKey: ['datasets', id ?? 0, 'preview'],
    queryFn: () => fetchPreview(id as number),
    enabled: id !== null && enabled,
  });
}
