import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { StoredDataModel } from '@/lib/api/ops/dataModelsList';
import type { components } from '@/lib/api/schema';

export type DataModelBody = components['schemas']['SavedDataModelRequest'];

/** Add a DataModel to the account's library (409 when the name is taken). */
export async function createDataModel(body: DataModelBody): Promise<StoredDataModel> {
  return unwrap(await api.POST('/api/data-models/', { body }));
}

export function useCreateDataModel() {
  return useMutation({ mutationFn: createDataModel });
}
