import { useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { ProgramVersion } from '../types';

/** One version's document and layout. */
export async function fetchVersion(programId: number, number: number): Promise<ProgramVersion> {
  return unwrap(
    await api.GET('/api/programs/{id}/versions/{number}/', {
      params: { path: { id: programId, number } },
    }),
  );
}

export function useVersion(programId: number | null, number: number | null) {
  return useQuery({
    queryKey: ['programs', programId ?? 0, 'versions', number ?? 0],
    queryFn: () => fetchVersion(programId as number, number as number),
    enabled: programId !== null && number !== null,
    staleTime: Infinity, // versions never change
  });
}
