import { describe, expect, it } from 'vitest';
import type { Catalogue, DatasetSummary, ProgramVersionSummary, Provider } from '@/lib/api/types';
import catalogue from '../__fixtures__/catalogue.json';
import { parseParams, startingFitForm } from './runConfig';
import {
  emptyTarget,
  fieldsOf,
  pickedDatasetVersion,
  programShape,
  resolveTarget,
  runEstimate,
  toggle,
} from './runSetup';

const versions = [
  { id: 11, number: 2, message: 'better' },
  { id: 10, number: 1, message: '' },
] as ProgramVersionSummary[];
const datasets = [
  { id: 6, name: 'draft', status: 'invalid', row_count: 3, test_fraction: 0.2 },
  { id: 5, name: 'capitals', status: 'valid', row_count: 40, test_fraction: 0.2 },
  { id: 7, name: 'more', status: 'valid', row_count: 80, test_fraction: 0.2 },
] as DatasetSummary[];
const providers = [
  { id: 2, name: 'minilm', kind: 'embedding', is_default: true },
  { id: 1, name: 'local', kind: 'language', is_default: false },
  { id: 3, name: 'hosted', kind: 'language', is_default: true },
] as Provider[];
const FIT = (catalogue as Catalogue).fit;
const lists = { programs: [{ id: 4 }, { id: 8 }], versions, datasets, providers };

describe('pickedDatasetVersion', () => {
  const datasetVersions = [{ number: 3 }, { number: 2 }, { number: 1 }];

  it('is the version picked, else the newest, else none', () => {
    expect(pickedDatasetVersion(2, datasetVersions)).toEqual({ number: 2 });
    expect(pickedDatasetVersion(null, datasetVersions)).toEqual({ number: 3 });
    // A number the dataset no longer lists (another dataset's pick): the newest.
    expect(pickedDatasetVersion(9, datasetVersions)).toEqual({ number: 3 });
    expect(pickedDatasetVersion(null, [])).toBeNull();
  });
});

describe('resolveTarget', () => {
  it('fills in the newest program and version, a valid dataset, the default language model', () => {
    const resolved = resolveTarget(emptyTarget(), lists);
    expect(resolved).toMatchObject({
      programId: 4,
      versionNumber: 2,
      versionId: 11,
      providerId: 3,
    });
    expect(resolved.dataset?.id).toBe(5);
    expect(resolved.datasets.map((d) => d.id)).toEqual([5, 7]);
    expect(resolved.providers.map((p) => p.id)).toEqual([1, 3]);
  });

  it('keeps what the user picked', () => {
    const target = {
      name: 'x',
      programId: 8,
      versionNumber: 1,
      datasetId: 7,
      datasetVersion: null,
      providerId: 1,
    };
    expect(resolveTarget(target, lists)).toMatchObject({
      programId: 8,
      versionId: 10,
      providerId: 1,
      dataset: { id: 7 },
    });
  });

  it('gives nulls while the lists are empty', () => {
    expect(
      resolveTarget(emptyTarget(), { programs: [], versions: [], datasets: [], providers: [] }),
    ).toMatchObject({
      programId: null,
      versionNumber: null,
      versionId: null,
      dataset: null,
      providerId: null,
    });
  });
});

describe('run setup helpers', () => {
  it('reads output fields, toggles a pick', () => {
    expect(fieldsOf({ properties: { answer: {}, reason: {} } })).toEqual(['answer', 'reason']);
    expect(fieldsOf(null)).toEqual([]);
    expect(toggle(['a'], 'b')).toEqual(['a', 'b']);
    expect(toggle(['a', 'b'], 'a')).toEqual(['b']);
  });

  it('counts LM modules and trainable variables, 1 and 1 before the document loads', () => {
    const document = {
      program: {
        modules: [
          { module: { class_name: 'Input' } },
          { module: { class_name: 'Generator' } },
          { module: { class_name: 'ChainOfThought' } },
        ],
      },
      variables: { a: {}, b: {} },
    };
    expect(programShape(document)).toEqual({ lmModules: 2, trainableVariables: 2 });
    expect(programShape(undefined)).toEqual({ lmModules: 1, trainableVariables: 1 });
  });

  it('estimates only with a dataset and valid fit settings', () => {
    const shape = { lmModules: 1, trainableVariables: 1 };
    const fit = parseParams(FIT, startingFitForm(FIT));
    // Candidates are scored on fit's minibatch of 4 rows, not the batch: 2 × 4 steps × 4.
    expect(runEstimate(datasets[1]!, shape, 'RandomFewShot', fit)?.total).toBe(16 + 64 + 32);
    expect(runEstimate(null, shape, 'RandomFewShot', fit)).toBeNull();
    const bad = parseParams(FIT, { ...startingFitForm(FIT), epochs: '0' });
    expect(runEstimate(datasets[1]!, shape, 'RandomFewShot', bad)).toBeNull();
  });

  it('counts repeated evaluations only above evaluation temperature 0', () => {
    const shape = { lmModules: 1, trainableVariables: 1 };
    const form = { ...startingFitForm(FIT), evaluations: '3' };
    const pinned = parseParams(FIT, form);
    expect(pinned.values.evaluation_temperature).toBe(0);
    // 8 test rows, before and after, once each.
    expect(runEstimate(datasets[1]!, shape, 'RandomFewShot', pinned)?.evaluation).toBe(16);
    const sampled = parseParams(FIT, { ...form, evaluation_temperature: '0.7' });
    expect(runEstimate(datasets[1]!, shape, 'RandomFewShot', sampled)?.evaluation).toBe(48);
  });
});
