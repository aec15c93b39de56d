import type { Throughput } from '../model/expectations';

/** What GET /api/runs/throughput/ says of a provider no finished run of the user's measured. */
export const unmeasured: Throughput = {
  optimizer: null,
  runs: 0,
  calls_per_second: null,
  pace_from: null,
  tokens_per_call: null,
  tokens_from: null,
  tokens_runs: 0,
  cost_per_token: null,
  prices: 'unknown',
  cost_runs: 0,
};
