import { describe, expect, it } from 'vitest';
import { buildInput, initialValues, traceInGraphOrder, tryFields } from './tryForm';

// What pydantic's model_json_schema() writes for:
// class Ask(DataModel): query: str; top_k: int = 3; weight: float | None = None;
//                       strict: bool = False; tags: list[str]
const ASK = {
  additionalProperties: false,
  properties: {
    query: { description: 'The question', title: 'Query', type: 'string' },
    top_k: { default: 3, title: 'Top K', type: 'integer' },
    weight: { anyOf: [{ type: 'number' }, { type: 'null' }], default: null, title: 'Weight' },
    strict: { default: false, title: 'Strict', type: 'boolean' },
    tags: { items: { type: 'string' }, title: 'Tags', type: 'array' },
  },
  required: ['query', 'tags'],
  title: 'Ask',
  type: 'object',
};

describe('tryFields', () => {
  it('gives each field the control its type needs, in schema order', () => {
    const fields = tryFields(ASK);
    expect(fields.map((f) => [f.name, f.control, f.required])).toEqual([
      ['query', 'text', true],
      ['top_k', 'integer', false],
      ['weight', 'number', false],
      ['strict', 'checkbox', false],
      ['tags', 'json', true],
    ]);
    expect(fields[0]).toMatchObject({ title: 'Query', description: 'The question' });
  });

  it('falls back to JSON for enums and nested models', () => {
    const fields = tryFields({
      properties: {
        mood: { enum: ['happy', 'sad'], title: 'Mood', type: 'string' },
        place: { $ref: '#/$defs/Place' },
      },
      required: ['mood', 'place'],
    });
    expect(fields.map((f) => f.control)).toEqual(['json', 'json']);
  });

  it('starts from the defaults', () => {
    expect(initialValues(tryFields(ASK))).toEqual({
      query: '',
      top_k: '3',
      weight: '',
      strict: false,
      tags: '',
    });
  });
});

describe('buildInput', () => {
  const fields = tryFields(ASK);

  it('builds the input object with typed values; empty optionals are left out', () => {
    const result = buildInput(fields, {
      query: 'What is the capital of France?',
      top_k: '5',
      weight: '',
      strict: true,
      tags: '["geo"]',
    });
    expect(result).toEqual({
      ok: true,
      value: { query: 'What is the capital of France?', top_k: 5, strict: true, tags: ['geo'] },
    });
  });

  it('names every field that is missing or does not parse', () => {
    const result = buildInput(fields, {
      query: '',
      top_k: '2.5',
      weight: 'heavy',
      strict: false,
      tags: '[geo',
    });
    expect(result).toEqual({
      ok: false,
      errors: {
        query: 'required',
        top_k: 'not a whole number',
        weight: 'not a number',
        tags: 'not valid JSON',
      },
    });
  });
});

describe('traceInGraphOrder', () => {
  it('orders entries as the document lists the modules', () => {
    const entry = (module: string) => ({
      module,
      inputs: null,
      outputs: null,
      error: null,
      parent: null,
      skipped: false,
      taken: null,
    });
    const ordered = traceInGraphOrder(
      [entry('answer'), entry('input_layer'), entry('draft')],
      ['input_layer', 'draft', 'answer'],
    );
    expect(ordered.map((e) => e.module)).toEqual(['input_layer', 'draft', 'answer']);
  });
});
