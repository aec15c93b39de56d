/** API answers the deployments tests mock (shapes as the server's serializers write them). */
export const QUERY_SCHEMA = {
  additionalProperties: false,
  properties: { query: { description: "The user's question", title: 'Query', type: 'string' } },
  required: ['query'],
  title: 'Query',
  type: 'object',
};

export const target = (id: number, run: number | null, reason = 'deploy') => ({
  id,
  reason,
  run,
  run_name: run === null ? null : `trained ${run}`,
  program: 1,
  program_name: 'capitals',
  program_version: 1,
  version_number: 1,
  single_input: true,
  input_schemas: [{ name: 'input_layer', schema: QUERY_SCHEMA }],
  output_schemas: [{ name: 'generator', schema: {} }],
  created_at: '2026-01-01T00:00:00Z',
});

export const USAGE = {
  requests: 2,
  predictions: 7,
  failures: 0,
  lm_calls: 7,
  prompt_tokens: 700,
  completion_tokens: 70,
  total_tokens: 770,
  cost: 0.0012,
  latency_s: 0.7,
  mean_latency_s: 0.1,
};

export const deployment = (current = target(11, 3), previous: unknown = null) => ({
  id: 5,
  name: 'capitals',
  target: current,
  previous,
  predict_url: 'http://studio.test/api/deployments/capitals/predict/',
  usage: USAGE,
  max_input_bytes: 262144,
  log_predictions: false,
  log_sample_rate: 1,
  log_retention_days: 30,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
});

export const page = <T>(results: T[]) => ({
  count: results.length,
  next: null,
  previous: null,
  results,
});

export const run = (id: number, state = 'succeeded') => ({ id, name: `trained ${id}`, state });

export const prediction = (id: number, fields: Record<string, unknown> = {}) => ({
  id,
  target: 11,
  source: 'api',
  batch: null,
  inputs: { query: `question ${id}` },
  outputs: { answer: `answer ${id}` },
  failed: false,
  error: '',
  latency_s: 0.25,
  prompt_tokens: 100,
  completion_tokens: 10,
  cost: 0.0001,
  created_at: '2026-01-02T10:00:00Z',
  verdict: null,
  correction: null,
  note: '',
  reviewed_at: null,
  ...fields,
});
