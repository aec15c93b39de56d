import { useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';
import type { components } from '../schema';

/** A DataModel of the account's library, as the API stores it. */
export type StoredDataModel = components['schemas']['SavedDataModel'];

export const dataModelsKey = ['data-models'] as const;

/** The signed-in user's DataModel library (not paginated: the editor needs all of it). */
export async function listDataModels(): Promise<StoredDataModel[]> {
  return unwrap(await api.GET('/api/data-models/'));
}

export function useDataModels() {
  return useQuery({ queryKey: dataModelsKey, queryFn: listDataModels });
}
