/**
 * The run setup form: reward, metrics, optimizer and fit settings, their defaults and
 * checks (the same ranges the library and studio/runs/config.py enforce), and the
 * `compile_config` / `fit_config` the API takes.
 */
export type ParamSpec =
  | {
      key: string;
      label: string;
      type: 'int';
      default: number | null;
      min?: number;
      max?: number;
      optional?: boolean;
    }
  | {
      key: string;
      label: string;
      type: 'float';
      default: number;
      min?: number;
      max?: number;
      exclusiveMin?: boolean;
    }
  | { key: string; label: string; type: 'bool'; default: boolean }
  | { key: string; label: string; type: 'choice'; default: string; choices: string[] }
  | { key: string; label: string; type: 'text'; default: string };

export type OptimizerName = 'RandomFewShot' | 'OMEGA';

export const OPTIMIZER_PARAMS: Record<OptimizerName, ParamSpec[]> = {
  RandomFewShot: [
    { key: 'nb_min_examples', label: 'Min examples', type: 'int', default: 1, min: 0 },
    { key: 'nb_max_examples', label: 'Max examples', type: 'int', default: 3, min: 0 },
    {
      key: 'sampling_temperature',
      label: 'Sampling temperature',
      type: 'float',
      default: 0.3,
      min: 0,
      exclusiveMin: true,
    },
    { key: 'population_size', label: 'Population size', type: 'int', default: 10, min: 2 },
    { key: 'few_shot_learning', label: 'Few-shot learning', type: 'bool', default: false },
    { key: 'seed', label: 'Seed', type: 'int', default: null, optional: true },
  ],
  OMEGA: [
    {
      key: 'algorithm',
      label: 'Algorithm',
      type: 'choice',
      default: 'dns',
      choices: ['dns', 'ga'],
    },
    {
      key: 'selection',
      label: 'Selection',
      type: 'choice',
      default: 'softmax',
      choices: ['softmax', 'best', 'random'],
    },
    { key: 'population_size', label: 'Population size', type: 'int', default: 10, min: 2 },
    { key: 'k_nearest_fitter', label: 'k nearest fitter', type: 'int', default: 5, min: 1 },
    {
      key: 'mutation_temperature',
      label: 'Mutation temperature',
      type: 'float',
      default: 0.3,
      min: 0,
      exclusiveMin: true,
    },
    {
      key: 'crossover_temperature',
      label: 'Crossover temperature',
      type: 'float',
      default: 0.3,
      min: 0,
      exclusiveMin: true,
    },
    {
      key: 'selection_temperature',
      label: 'Selection temperature',
      type: 'float',
      default: 0.3,
      min: 0,
      exclusiveMin: true,
    },
    {
      key: 'sampling_temperature',
      label: 'Sampling temperature',
      type: 'float',
      default: 0.3,
      min: 0,
      exclusiveMin: true,
    },
    { key: 'merging_rate', label: 'Merging rate', type: 'float', default: 0.02, min: 0, max: 1 },
    { key: 'few_shot_learning', label: 'Few-shot learning', type: 'bool', default: false },
    { key: 'nb_min_examples', label: 'Min examples', type: 'int', default: 1, min: 0 },
    { key: 'nb_max_examples', label: 'Max examples', type: 'int', default: 3, min: 0 },
    { key: 'instructions', label: 'Optimizer instructions', type: 'text', default: '' },
    { key: 'seed', label: 'Seed', type: 'int', default: null, optional: true },
  ],
};

export const FIT_PARAMS: ParamSpec[] = [
  { key: 'epochs', label: 'Epochs', type: 'int', default: 1, min: 1, max: 1000 },
  { key: 'batch_size', label: 'Batch size', type: 'int', default: 32, min: 1, max: 4096 },
  {
    key: 'validation_split',
    label: 'Validation split',
    type: 'float',
    default: 0,
    min: 0,
    max: 0.99,
  },
  { key: 'seed', label: 'Seed', type: 'int', default: null, optional: true },
  {
    key: 'evaluations',
    label: 'Evaluations (before / after)',
    type: 'int',
    default: 3,
    min: 1,
    max: 20,
  },
  { key: 'shuffle', label: 'Shuffle', type: 'bool', default: true },
];

export const REWARDS = ['ExactMatch', 'LMAsJudge'] as const;
export const METRICS = ['F1Score', 'Precision', 'Recall'] as const;

export type OptimizerChoice = { name: OptimizerName; params: ParamSpec[] };

/**
 * What run setup offers: the lists its reward, metric and optimizer choosers are fed.
 * Written here today; a server-side catalogue will send the same lists.
 */
export type RunCatalogue = {
  rewards: string[];
  metrics: string[];
  optimizers: OptimizerChoice[];
};

export const RUN_CATALOGUE: RunCatalogue = {
  rewards: [...REWARDS],
  metrics: [...METRICS],
  optimizers: [
    { name: 'RandomFewShot', params: OPTIMIZER_PARAMS.RandomFewShot },
    { name: 'OMEGA', params: OPTIMIZER_PARAMS.OMEGA },
  ],
};

/** Form values are text (as typed) for numbers, booleans for checkboxes. */
export type FormValues = Record<string, string | boolean>;

export function defaults(specs: ParamSpec[]): FormValues {
  return Object.fromEntries(
    specs.map((s) => [
      s.key,
      s.type === 'bool' ? s.default : s.default === null ? '' : String(s.default),
    ]),
  );
}

/** The chosen optimizer and its settings as typed. */
export type OptimizerForm = { name: OptimizerName; values: FormValues };

export function optimizerDefaults(choice: OptimizerChoice): OptimizerForm {
  return { name: choice.name, values: defaults(choice.params) };
}

/** Run setup starts smaller than the library's defaults: a first run should be quick. */
export function startingFitForm(): FormValues {
  return { ...defaults(FIT_PARAMS), epochs: '2', batch_size: '8', evaluations: '1' };
}

export type Parsed = { values: Record<string, unknown>; errors: Record<string, string> };

/** Parse and check the form values; an empty optional field is left out (the default). */
export function parseParams(specs: ParamSpec[], form: FormValues): Parsed {
  const values: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const spec of specs) {
    const raw = form[spec.key];
    if (spec.type === 'bool') {
      values[spec.key] = Boolean(raw);
      continue;
    }
    const text = String(raw ?? '').trim();
    if (spec.type === 'choice') {
      if (!spec.choices.includes(text))
        errors[spec.key] = `choose one of ${spec.choices.join(', ')}`;
      else values[spec.key] = text;
      continue;
    }
    if (spec.type === 'text') {
      if (text) values[spec.key] = text;
      continue;
    }
    if (text === '') {
      if (spec.type === 'int' && spec.optional) continue;
      errors[spec.key] = 'required';
      continue;
    }
    const value = Number(text);
    if (!Number.isFinite(value)) {
      errors[spec.key] = 'not a number';
      continue;
    }
    if (spec.type === 'int' && !Number.isInteger(value)) {
      errors[spec.key] = 'must be a whole number';
      continue;
    }
    if (spec.min !== undefined) {
      const tooLow =
        spec.type === 'float' && spec.exclusiveMin ? value <= spec.min : value < spec.min;
      if (tooLow) {
        errors[spec.key] =
          `must be ${spec.type === 'float' && spec.exclusiveMin ? '>' : '≥'} ${spec.min}`;
        continue;
      }
    }
    if (spec.max !== undefined && value > spec.max) {
      errors[spec.key] = `must be ≤ ${spec.max}`;
      continue;
    }
    values[spec.key] = value;
  }
  if (
    typeof values.nb_min_examples === 'number' &&
    typeof values.nb_max_examples === 'number' &&
    values.nb_max_examples < values.nb_min_examples
  )
    errors.nb_max_examples = 'must be ≥ min examples';
  return { values, errors };
}

export type RewardChoice = { name: string; inMask: string[]; outMask: string[]; criteria: string };

function masks(choice: Pick<RewardChoice, 'inMask' | 'outMask'>): Record<string, string[]> {
  const params: Record<string, string[]> = {};
  if (choice.inMask.length) params.in_mask = choice.inMask;
  if (choice.outMask.length) params.out_mask = choice.outMask;
  return params;
}

/** The `compile_config` of studio/runs/config.py. */
export function compileConfig(
  reward: RewardChoice,
  metrics: string[],
  optimizer: OptimizerName,
  optimizerParams: Record<string, unknown>,
): Record<string, unknown> {
  const rewardParams: Record<string, unknown> = masks(reward);
  if (reward.name === 'LMAsJudge' && reward.criteria.trim())
    rewardParams.criteria = reward.criteria.trim();
  return {
    reward: { name: reward.name, params: rewardParams },
    metrics: metrics.map((name) => ({ name, params: masks(reward) })),
    optimizer: { name: optimizer, params: optimizerParams },
  };
}

/** Split a server error path (`compile_config.optimizer.params`) into the form section it names. */
export function sectionOf(path: string): 'reward' | 'metrics' | 'optimizer' | 'fit' | 'run' {
  if (path.startsWith('compile_config.reward')) return 'reward';
  if (path.startsWith('compile_config.metrics')) return 'metrics';
  if (path.startsWith('compile_config.optimizer')) return 'optimizer';
  if (path.startsWith('fit_config')) return 'fit';
  return 'run';
}
