import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import { datasetsKey } from '@/lib/api/ops/datasetsList';
import type { Dataset } from '@/lib/api/types';

export async function addBuiltin(body: {
  builtin_name: string;
  limit?: number | null;
}): Promise<Dataset> {
  return unwrap(await api.POST('/api/datasets/builtin/', { body: { name: '', ...body } }));
}

export function useAddBuiltin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: addBuiltin,
    onSuccess: () => client.invalidateQueries({ queryKey: datasetsKey }),
  });
}
