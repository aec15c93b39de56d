import { useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { ProgramVersionSummary } from '../types';

export const versionsKey = (programId: number) => ['programs', programId, 'versions'] as const;

/** A program's versions, newest first. */
export async function listVersions(programId: number): Promise<ProgramVersionSummary[]> {
  return unwrap(
    await api.GET('/api/programs/{id}/versions/', { params: { path: { id: programId } } }),
  ).results;
}

export function useVersions(programId: number | null) {
  return useQuery({
    queryKey: versionsKey(programId ?? 0),
    queryFn: () => listVersions(programId as number),
    enabled: programId !== null,
  });
}
