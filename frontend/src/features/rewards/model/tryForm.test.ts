import { describe, expect, it } from 'vitest';
import { buildTryRequest, EMPTY_TRY, parseFieldMapping, parseRows } from './tryForm';

describe('parseRows', () => {
  it('reads numbers and ranges', () => {
    expect(parseRows('0, 3, 5-7')).toEqual([0, 3, 5, 6, 7]);
    expect(parseRows('')).toEqual([]);
  });
  it('says what is wrong', () => {
    expect(parseRows('1, x')).toBe('x is not a row number');
    expect(parseRows('7-5')).toBe('7-5: the end comes before the start');
    expect(parseRows('0-60')).toBe('at most 50 rows');
  });
});

describe('parseFieldMapping', () => {
  it('maps prediction fields to row fields, one a line', () => {
    expect(parseFieldMapping('answer = output.answer\n\nwhy=input.query')).toEqual({
      answer: 'output.answer',
      why: 'input.query',
    });
  });
  it('refuses a line without a field on each side', () => {
    expect(parseFieldMapping('answer')).toMatch(/prediction field = row field/);
    expect(parseFieldMapping('')).toBe('map at least one field');
  });
});

describe('buildTryRequest', () => {
  it('needs a dataset', () => {
    expect(buildTryRequest(EMPTY_TRY, { version: 1 })).toEqual({
      request: null,
      errors: { dataset: 'pick a dataset' },
    });
  });
  it('sends the version, the rows and y_pred typed in', () => {
    const form = {
      ...EMPTY_TRY,
      dataset: 4,
      datasetVersion: 2,
      rows: '1-2',
      mode: 'json' as const,
    };
    expect(buildTryRequest(form, { version: 3 }).request).toEqual({
      dataset: 4,
      dataset_version: 2,
      rows: [1, 2],
      limit: 5,
      version: 3,
      prediction: { answer: '' },
    });
  });
  it('sends unsaved source with y_pred from row fields, the first N rows', () => {
    const form = { ...EMPTY_TRY, dataset: 4, mode: 'fields' as const, limit: 3 };
    expect(buildTryRequest(form, { source: 'def reward(a, b): return 1' }).request).toEqual({
      dataset: 4,
      limit: 3,
      source: 'def reward(a, b): return 1',
      prediction_fields: { answer: 'output.answer' },
    });
  });
  it('refuses JSON that does not parse', () => {
    const form = { ...EMPTY_TRY, dataset: 4, mode: 'json' as const, json: '{' };
    expect(buildTryRequest(form, {}).errors.json).toMatch(/^not JSON/);
  });
});
