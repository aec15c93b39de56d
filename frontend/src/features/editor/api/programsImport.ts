import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { programsKey } from '@/lib/api/ops/programsList';
import type { Program } from '@/lib/api/types';

/** Import an exported program file (the document, with or without its `layout`). */
export async function importProgram(file: File): Promise<Program> {
  return unwrap(
    await api.POST('/api/programs/import/', {
      body: { file: file as unknown as string, name: '', description: '' },
      bodySerializer: () => {
        const form = new FormData();
        form.append('file', file);
        return form;
      },
    }),
  );
}

export function useImportProgram() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: importProgram,
    onSuccess: () => client.invalidateQueries({ queryKey: programsKey }),
  });
}
