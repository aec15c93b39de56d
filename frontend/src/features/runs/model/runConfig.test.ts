import { describe, expect, it } from 'vitest';
import type { Catalogue, CatalogueEntry, CatalogueParam } from '@/lib/api/types';
import catalogueJson from '../__fixtures__/catalogue.json';
import {
  compileConfig,
  defaults,
  entryDefaults,
  findEntry,
  metricValues,
  ownParams,
  parseParams,
  sectionOf,
  startingFitForm,
} from './runConfig';

/** What GET /api/catalogue/ answers (written from the engine by frontend/scripts/make_fixtures.py). */
const catalogue = catalogueJson as Catalogue;
const randomFewShot = findEntry(catalogue.optimizers, 'RandomFewShot')!;

const param = (over: Partial<CatalogueParam> & Pick<CatalogueParam, 'name' | 'type'>) =>
  ({
    label: over.name,
    description: '',
    default: null,
    nullable: false,
    required: false,
    minimum: null,
    maximum: null,
    exclusive_minimum: false,
    exclusive_maximum: false,
    choices: null,
    ...over,
  }) as CatalogueParam;

describe('run setup form', () => {
  it('starts from the declared defaults and parses them', () => {
    const parsed = parseParams(randomFewShot.params, defaults(randomFewShot.params));
    expect(parsed.errors).toEqual({});
    expect(parsed.values).toEqual({
      nb_min_examples: 1,
      nb_max_examples: 3,
      sampling_temperature: 0.3,
      population_size: 10,
      few_shot_learning: false,
      labelled_examples: true,
    });
  });

  it('refuses values outside the declared ranges, naming the field', () => {
    const form = {
      ...defaults(randomFewShot.params),
      nb_min_examples: '4',
      sampling_temperature: '0',
      population_size: '1.5',
    };
    expect(parseParams(randomFewShot.params, form).errors).toEqual({
      nb_max_examples: 'must be ≥ min examples',
      sampling_temperature: 'must be > 0',
      population_size: 'must be a whole number',
    });
    const fit = parseParams(catalogue.fit, {
      ...defaults(catalogue.fit),
      epochs: '0',
      validation_split: '1',
    });
    expect(fit.errors).toEqual({ epochs: 'must be ≥ 1', validation_split: 'must be < 1' });
  });

  it('checks every declared type generically', () => {
    const specs = [
      param({ name: 'count', type: 'int', default: 2, minimum: 1, maximum: 5 }),
      param({ name: 'rate', type: 'float', default: 0.5, maximum: 1, exclusive_maximum: true }),
      param({ name: 'mode', type: 'str', default: 'a', choices: ['a', 'b'] }),
      param({ name: 'note', type: 'str', nullable: true }),
      param({ name: 'tags', type: 'str_list', nullable: true }),
      param({ name: 'only', type: 'fields', nullable: true }),
      param({ name: 'needed', type: 'int', required: true }),
    ];
    const start = defaults(specs);
    expect(start).toEqual({
      count: '2',
      rate: '0.5',
      mode: 'a',
      note: '',
      tags: '',
      only: [],
      needed: '',
    });
    expect(parseParams(specs, start).errors).toEqual({ needed: 'required' });
    const typed = { ...start, count: '6', rate: '1', mode: 'c', needed: 'x' };
    expect(parseParams(specs, typed).errors).toEqual({
      count: 'must be ≤ 5',
      rate: 'must be < 1',
      mode: 'choose one of a, b',
      needed: 'not a number',
    });
    const good = { ...start, tags: 'x, y,', only: ['answer'], note: 'hi', needed: '3' };
    expect(parseParams(specs, good).values).toEqual({
      count: 2,
      rate: 0.5,
      mode: 'a',
      note: 'hi',
      tags: ['x', 'y'],
      only: ['answer'],
      needed: 3,
    });
  });

  it('applies the reward masks to the metrics and writes the compile config', () => {
    const reward = findEntry(catalogue.rewards, 'ExactMatch')!;
    const f1 = findEntry(catalogue.metrics, 'F1Score')!;
    expect(ownParams(f1, reward).map((p) => p.name)).toEqual(['average']);
    const rewardValues = { ...entryDefaults(reward).values, in_mask: ['answer'] };
    const own = entryDefaults(f1).values;
    const metric = parseParams(f1.params, metricValues(f1, own, reward, rewardValues));
    const config = compileConfig(
      { name: 'ExactMatch', params: parseParams(reward.params, rewardValues).values },
      [{ name: 'F1Score', params: metric.values }],
      { name: 'RandomFewShot', params: { nb_max_examples: 2 } },
    );
    expect(config).toEqual({
      reward: { name: 'ExactMatch', params: { in_mask: ['answer'] } },
      metrics: [{ name: 'F1Score', params: { average: 'samples', in_mask: ['answer'] } }],
      optimizer: { name: 'RandomFewShot', params: { nb_max_examples: 2 } },
    });
  });

  it('sends null for a setting left empty that allows none but defaults to a value', () => {
    const f1 = findEntry(catalogue.metrics, 'F1Score')!;
    const average = f1.params.find((p) => p.name === 'average')!;
    expect(average.nullable && average.default).toBe('samples');
    expect(parseParams([average], { average: '' }).values).toEqual({ average: null });
    expect(parseParams([average], { average: 'micro' }).values).toEqual({ average: 'micro' });
    // Left out where none is the default anyway.
    const seed = param({ name: 'seed', type: 'int', default: null, nullable: true });
    expect(parseParams([seed], { seed: '' }).values).toEqual({});
  });

  it('keeps a metric setting of its own that the reward lacks', () => {
    const metric: CatalogueEntry = {
      ...findEntry(catalogue.metrics, 'Recall')!,
      params: [param({ name: 'beta', type: 'float', default: 1 })],
    };
    const reward = findEntry(catalogue.rewards, 'ExactMatch');
    expect(ownParams(metric, reward).map((p) => p.name)).toEqual(['beta']);
  });

  it('routes a server error to its section', () => {
    expect(sectionOf('compile_config.optimizer.params')).toBe('optimizer');
    expect(sectionOf('fit_config.epochs')).toBe('fit');
    expect(sectionOf('dataset')).toBe('run');
  });

  it('starts every catalogued entry and the fit settings from valid values', () => {
    for (const entry of [...catalogue.rewards, ...catalogue.metrics, ...catalogue.optimizers]) {
      const start = entryDefaults(entry);
      expect(start.name).toBe(entry.name);
      expect(parseParams(entry.params, start.values).errors).toEqual({});
    }
    expect(parseParams(catalogue.fit, startingFitForm(catalogue.fit)).values).toMatchObject({
      epochs: 2,
      batch_size: 8,
      evaluations: 1,
    });
  });
});
