import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { Catalogue } from '@/lib/api/types';

/**
 * What run setup offers: the engine's rewards, metrics and optimizers with their settings,
 * and the fit settings (GET /api/catalogue/). The form is built from this alone.
 */
export async function fetchCatalogue(): Promise<Catalogue> {
  return unwrap(await api.GET('/api/catalogue/'));
}

/** `enabled`: false while the caller has nothing to look up in it. */
export function useCatalogue(enabled = true) {
  return useQuery({
    queryKey: ['catalogue'],
    queryFn: fetchCatalogue,
    staleTime: Infinity,
    enabled,
  });
}
