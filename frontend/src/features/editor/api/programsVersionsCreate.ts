import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { programsKey } from '@/lib/api/ops/programsList';
import type { ProgramVersion } from '@/lib/api/types';

export type NewVersion = {
  programId: number;
  document: unknown;
  layout: unknown;
  message?: string;
};

/** Save: every save is a new, immutable version. */
export async function createVersion({
  programId,
  message = '',
  ...rest
}: NewVersion): Promise<ProgramVersion> {
  return unwrap(
    await api.POST('/api/programs/{id}/versions/', {
      params: { path: { id: programId } },
      body: { ...rest, message },
    }),
  );
}

export function useCreateVersion() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createVersion,
    onSuccess: () => client.invalidateQueries({ queryKey: programsKey }),
  });
}
