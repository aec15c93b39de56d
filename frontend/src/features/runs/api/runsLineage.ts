import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { components } from '@/lib/api/schema';

type S = components['schemas'];
export type Lineage = S['Lineage'];
export type VariableLineage = S['VariableLineage'];
export type LineageCandidate = S['LineageNode'];
export type LineageRow = S['LineageRow'];
export type ParentComparison = S['ParentComparison'];
export type RowOutcome = S['RowOutcome'];

export const lineageKey = (id: number) => ['runs', id, 'lineage'] as const;

/** GET /api/runs/{id}/lineage/: each variable's candidates, their parents and rows. */
export async function fetchRunLineage(id: number): Promise<Lineage> {
  return unwrap(await api.GET('/api/runs/{id}/lineage/', { params: { path: { id } } }));
}

export function useRunLineage(id: number) {
  return useQuery({ queryKey: lineageKey(id), queryFn: () => fetchRunLineage(id) });
}
