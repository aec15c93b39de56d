import type { RunFilters } from '@/lib/api/ops/runsList';

export const RUN_STATES = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'budget_spent',
] as const satisfies readonly NonNullable<RunFilters['state']>[];

const positive = (raw: string | null) => {
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : undefined;
};

/** The runs table's server-side filters, as kept in the page's URL (`?program=3&optimizer=omega`). */
export function filtersFromParams(params: URLSearchParams): RunFilters {
  const filters: RunFilters = {};
  const program = positive(params.get('program'));
  const dataset = positive(params.get('dataset'));
  const optimizer = params.get('optimizer')?.trim();
  const state = params.get('state');
  if (program) filters.program = program;
  if (dataset) filters.dataset = dataset;
  if (optimizer) filters.optimizer = optimizer;
  if (state && (RUN_STATES as readonly string[]).includes(state))
    filters.state = state as RunFilters['state'];
  return filters;
}

/** `params` with one filter set (or removed when empty); the page starts over. */
export function withFilter(
  params: URLSearchParams,
  key: keyof RunFilters,
  value: string | number | undefined,
): URLSearchParams {
  const next = new URLSearchParams(params);
  if (value === undefined || value === '') next.delete(key);
  else next.set(key, String(value));
  next.delete('page');
  return next;
}
