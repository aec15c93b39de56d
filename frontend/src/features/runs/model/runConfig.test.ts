import { describe, expect, it } from 'vitest';
import {
  compileConfig,
  defaults,
  FIT_PARAMS,
  OPTIMIZER_PARAMS,
  optimizerDefaults,
  parseParams,
  RUN_CATALOGUE,
  sectionOf,
  startingFitForm,
} from './runConfig';

describe('run setup form', () => {
  it('starts from the library defaults and parses them', () => {
    const parsed = parseParams(
      OPTIMIZER_PARAMS.RandomFewShot,
      defaults(OPTIMIZER_PARAMS.RandomFewShot),
    );
    expect(parsed.errors).toEqual({});
    expect(parsed.values).toEqual({
      nb_min_examples: 1,
      nb_max_examples: 3,
      sampling_temperature: 0.3,
      population_size: 10,
      few_shot_learning: false,
    });
  });

  it('refuses values the library would refuse, naming the field', () => {
    const form = {
      ...defaults(OPTIMIZER_PARAMS.RandomFewShot),
      nb_min_examples: '4',
      sampling_temperature: '0',
      population_size: '1.5',
    };
    expect(parseParams(OPTIMIZER_PARAMS.RandomFewShot, form).errors).toEqual({
      nb_max_examples: 'must be ≥ min examples',
      sampling_temperature: 'must be > 0',
      population_size: 'must be a whole number',
    });
    const fit = parseParams(FIT_PARAMS, {
      ...defaults(FIT_PARAMS),
      epochs: '0',
      validation_split: '1',
    });
    expect(fit.errors).toEqual({ epochs: 'must be ≥ 1', validation_split: 'must be ≤ 0.99' });
  });

  it('writes the compile config with masks on the reward and the metrics', () => {
    const config = compileConfig(
      { name: 'ExactMatch', inMask: ['answer'], outMask: [], criteria: '' },
      ['F1Score'],
      'RandomFewShot',
      { nb_max_examples: 2 },
    );
    expect(config).toEqual({
      reward: { name: 'ExactMatch', params: { in_mask: ['answer'] } },
      metrics: [{ name: 'F1Score', params: { in_mask: ['answer'] } }],
      optimizer: { name: 'RandomFewShot', params: { nb_max_examples: 2 } },
    });
  });

  it('routes a server error to its section', () => {
    expect(sectionOf('compile_config.optimizer.params')).toBe('optimizer');
    expect(sectionOf('fit_config.epochs')).toBe('fit');
    expect(sectionOf('dataset')).toBe('run');
  });

  it('offers every optimizer with its settings, and starts from valid values', () => {
    expect(RUN_CATALOGUE.optimizers.map((o) => o.name)).toEqual(Object.keys(OPTIMIZER_PARAMS));
    for (const choice of RUN_CATALOGUE.optimizers) {
      const start = optimizerDefaults(choice);
      expect(start.name).toBe(choice.name);
      expect(parseParams(choice.params, start.values).errors).toEqual({});
    }
    expect(parseParams(FIT_PARAMS, startingFitForm()).values).toMatchObject({
      epochs: 2,
      batch_size: 8,
      evaluations: 1,
    });
  });
});
