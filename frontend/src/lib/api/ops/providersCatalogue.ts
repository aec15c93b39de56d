import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { ProviderCatalogueEntry } from '@/lib/api/types';

/** Known models, to fill the provider form from (the providers page and run setup's quick add). */
export async function fetchProviderCatalogue(): Promise<ProviderCatalogueEntry[]> {
  return unwrap(await api.GET('/api/providers/catalogue/'));
}

export function useProviderCatalogue() {
  return useQuery({
    queryKey: ['providers', 'catalogue'],
    queryFn: fetchProviderCatalogue,
    staleTime: Infinity,
  });
}
