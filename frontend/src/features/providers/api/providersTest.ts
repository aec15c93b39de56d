import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { components } from '@/lib/api/schema';

export type ConnectionCheck = components['schemas']['ConnectionCheck'];

/** One small call with a provider's settings: its answer or its error, and the latency. */
export async function testProvider(id: number): Promise<ConnectionCheck> {
  return unwrap(await api.POST('/api/providers/{id}/test/', { params: { path: { id } } }));
}

export function useTestProvider() {
  return useMutation({ mutationFn: testProvider });
}
