import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { paths } from '@/lib/api/schema';

/** `{name: {before, after}}`: each trainable variable's fields before and after training. */
export type RunVariables =
  paths['/api/runs/{id}/variables/']['get']['responses'][200]['content']['application/json'];

export const variablesKey = (id: number) => ['runs', id, 'variables'] as const;

/** GET /api/runs/{id}/variables/: the start document's and the trained one's variables. */
export async function fetchRunVariables(id: number): Promise<RunVariables> {
  return unwrap(await api.GET('/api/runs/{id}/variables/', { params: { path: { id } } }));
}

/** Read once the run has stopped: the trained document is written when training ends. */
export function useRunVariables(id: number, enabled: boolean) {
  return useQuery({
    queryKey: variablesKey(id),
    queryFn: () => fetchRunVariables(id),
    enabled,
  });
}
