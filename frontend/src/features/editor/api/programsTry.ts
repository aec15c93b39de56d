import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { TryResult } from '@/lib/api/types';

export type TryBody = {
  /** The input JSON: one object, or a list for programs with several inputs. */
  input: unknown;
  /** The editor's current (possibly unsaved) document; wins over `version`. */
  document?: unknown;
  version?: number;
  /** A language provider id; the server uses the default provider when absent. */
  provider?: number;
};

/** Run a saved program once on one input: its output and every module's input and output. */
export async function tryProgram(programId: number, body: TryBody): Promise<TryResult> {
  return unwrap(
    await api.POST('/api/programs/{id}/try/', { params: { path: { id: programId } }, body }),
  );
}

export function useTryProgram(programId: number | null) {
  return useMutation({
    mutationFn: (body: TryBody) => {
      if (programId === null) throw new Error('Save the program first.');
      return tryProgram(programId, body);
    },
  });
}
