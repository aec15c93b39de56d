import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { DatasetCatalogueEntry } from '@/lib/api/types';

/** The built-in datasets the server can add without an upload. */
export async function fetchCatalogue(): Promise<DatasetCatalogueEntry[]> {
  return unwrap(await api.GET('/api/datasets/catalogue/'));
}

export function useCatalogue() {
  return useQuery({
    queryKey: ['datasets', 'catalogue'],
    queryFn: fetchCatalogue,
    staleTime: Infinity,
  });
}
