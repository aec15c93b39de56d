import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { StoredDataModel } from '@/lib/api/ops/dataModelsList';
import type { DataModelBody } from './dataModelsCreate';

/** Replace a library DataModel's name, class and schema. */
export async function updateDataModel(id: number, body: DataModelBody): Promise<StoredDataModel> {
  return unwrap(await api.PUT('/api/data-models/{id}/', { params: { path: { id } }, body }));
}

export function useUpdateDataModel() {
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: DataModelBody }) => updateDataModel(id, body),
  });
}
