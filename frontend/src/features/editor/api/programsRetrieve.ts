import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { Program } from '@/lib/api/types';

export async function fetchProgram(programId: number): Promise<Program> {
  return unwrap(await api.GET('/api/programs/{id}/', { params: { path: { id: programId } } }));
}

export function useProgram(programId: number | null) {
  return useQuery({
    queryKey: ['programs', programId ?? 0],
    queryFn: () => fetchProgram(programId as number),
    enabled: programId !== null,
  });
}
