import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api/client';
import { unwrap } from '@/lib/api/errors';
import type { components } from '@/lib/api/schema';

export type Throughput = components['schemas']['Throughput'];

export const throughputKey = (
  provider: number,
  program: number | null,
  optimizer: string | null = null,
) => ['runs', 'throughput', provider, program, optimizer] as const;

/**
 * GET /api/runs/throughput/: what the user's recent finished runs on a provider measured
 * (calls per second, tokens per call, cost per token), the runs with the picked optimizer
 * (and of the program) first.
 */
export async function fetchThroughput(
  provider: number,
  program: number | null,
  optimizer: string | null = null,
): Promise<Throughput> {
  const query = {
    provider,
    ...(program === null ? {} : { program }),
    ...(optimizer === null ? {} : { optimizer }),
  };
  return unwrap(await api.GET('/api/runs/throughput/', { params: { query } }));
}

/** Disabled until a provider is picked. */
export function useThroughput(
  provider: number | null,
  program: number | null,
  optimizer: string | null = null,
) {
  return useQuery({
    queryKey: throughputKey(provider ?? 0, program, optimizer),
    queryFn: () => fetchThroughput(provider ?? 0, program, optimizer),
    enabled: provider !== null,
  });
}
