import { describe, expect, it } from 'vitest';
import { fromValues, plainFields, toValues } from './correctionFields';

const SCHEMA = {
  type: 'object',
  properties: {
    answer: { type: 'string' },
    score: { type: 'integer' },
    sure: { type: 'boolean' },
  },
  required: ['answer', 'score'],
};

describe('correction fields', () => {
  it('gives one field per plain property, and none for nested or untyped ones', () => {
    expect(plainFields(SCHEMA)).toEqual([
      { name: 'answer', kind: 'string', required: true },
      { name: 'score', kind: 'integer', required: true },
      { name: 'sure', kind: 'boolean', required: false },
    ]);
    expect(plainFields({ properties: { items: { type: 'array' } } })).toBeNull();
    expect(plainFields({ properties: { any: {} } })).toBeNull();
    expect(plainFields({})).toBeNull();
  });

  it('reads an output into values and back', () => {
    const fields = plainFields(SCHEMA)!;
    const values = toValues(fields, { answer: 'Paris', score: 3 });
    expect(values).toEqual({ answer: 'Paris', score: '3', sure: false });
    expect(fromValues(fields, { ...values, sure: true })).toEqual({
      value: { answer: 'Paris', score: 3, sure: true },
    });
  });

  it('names the field that does not read as its kind', () => {
    const fields = plainFields(SCHEMA)!;
    expect(fromValues(fields, { answer: 'Paris', score: '2.5', sure: false })).toEqual({
      field: 'score',
      error: 'a whole number',
    });
    expect(fromValues(fields, { answer: '', score: '', sure: false })).toEqual({
      field: 'score',
      error: 'a number is needed',
    });
  });
});
