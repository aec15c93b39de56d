import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { programsKey } from '@/lib/api/ops/programsList';
import type { Program } from '@/lib/api/types';

export type NewProgram = {
  name: string;
  /** The Program row's description (the programs list shows it); the document has its own. */
  description?: string;
  document: unknown;
  layout: unknown;
  message?: string;
};

/** Create a program with its first version (400 with `errors` when the document does not load). */
export async function createProgram(body: NewProgram): Promise<Program> {
  return unwrap(
    await api.POST('/api/programs/', { body: { description: '', message: '', ...body } }),
  );
}

export function useCreateProgram() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createProgram,
    onSuccess: () => client.invalidateQueries({ queryKey: programsKey }),
  });
}
