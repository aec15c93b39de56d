import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { programsKey } from '@/lib/api/ops/programsList';
import type { Program } from '@/lib/api/types';

export type ProgramPatch = { name?: string; description?: string };

/** Rename or redescribe a program (its versions stay as they are; 409 when the name is taken). */
export async function updateProgram(programId: number, body: ProgramPatch): Promise<Program> {
  return unwrap(
    await api.PATCH('/api/programs/{id}/', { params: { path: { id: programId } }, body }),
  );
}

/**
 * The body that brings the Program row's description (what the programs list shows) in line
 * with the one typed in the editor; null when they already agree.
 */
export function descriptionPatch(
  description: string | null,
  stored: string | null,
): { description: string } | null {
  const wanted = description ?? '';
  return wanted === (stored ?? '') ? null : { description: wanted };
}

export function useUpdateProgram() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ programId, body }: { programId: number; body: ProgramPatch }) =>
      updateProgram(programId, body),
    onSuccess: () => client.invalidateQueries({ queryKey: programsKey }),
  });
}
