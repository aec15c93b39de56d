import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { components } from '@/lib/api/schema';

export type Throughput = components['schemas']['Throughput'];

export const throughputKey = (provider: number, program: number | null) =>
  ['runs', 'throughput', provider, program] as const;

/**
 * GET /api/runs/throughput/: what the user's recent finished runs on a provider measured
 * (calls per second, tokens per call, cost per token), the program's own runs first.
 */
export async function fetchThroughput(
  provider: number,
  program: number | null,
): Promise<Throughput> {
  return unwrap(
    await api.GET('/api/runs/throughput/', {
      params: { query: { provider, ...(program === null ? {} : { program }) } },
    }),
  );
}

/** Disabled until a provider is picked. */
export function useThroughput(provider: number | null, program: number | null) {
  return useQuery({
    queryKey: throughputKey(provider ?? 0, program),
    queryFn: () => fetchThroughput(provider ?? 0, program),
    enabled: provider !== null,
  });
}
