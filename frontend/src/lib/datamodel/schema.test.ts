import { describe, expect, it } from 'vitest';
import type { Json } from '../json';
import schemas from './__fixtures__/schemas.json';
import {
  fieldTitle,
  fromJsonSchema,
  SchemaError,
  toJsonSchema,
  validateDataModel,
  type DataModelDef,
} from './schema';

// The same models as frontend/scripts/make_fixtures.py writes in Python.
const source: DataModelDef = {
  name: 'Source',
  fields: [
    {
      name: 'url',
      type: { kind: 'string' },
      description: 'Where the fact comes from',
      required: true,
    },
    {
      name: 'score',
      type: { kind: 'number' },
      description: 'How much to trust it',
      required: false,
      default: 0.5,
    },
  ],
};

const report: DataModelDef = {
  name: 'Report',
  description: 'A graded answer with its sources.',
  fields: [
    { name: 'title', type: { kind: 'string' }, description: 'A short title', required: true },
    {
      name: 'count',
      type: { kind: 'integer' },
      description: 'How many facts',
      required: false,
      default: 3,
    },
    { name: 'ratio', type: { kind: 'number' }, description: 'A number', required: true },
    {
      name: 'verified',
      type: { kind: 'boolean' },
      description: 'Whether it was checked',
      required: false,
      default: false,
    },
    {
      name: 'label',
      type: { kind: 'enum', values: ['good', 'bad', 'unsure'] },
      description: 'The verdict',
      required: true,
    },
    {
      name: 'tags',
      type: { kind: 'list', items: { kind: 'string' } },
      description: 'Keywords',
      required: true,
    },
    {
      name: 'scores',
      type: { kind: 'list', items: { kind: 'integer' } },
      description: 'Per-fact scores',
      required: false,
      default: [],
    },
    {
      name: 'main_source',
      type: { kind: 'model', model: 'Source' },
      description: 'The best source',
      required: true,
    },
    {
      name: 'sources',
      type: { kind: 'list', items: { kind: 'model', model: 'Source' } },
      description: 'All sources',
      required: true,
    },
    { name: 'note', type: { kind: 'string' }, description: 'An optional note', required: false },
    { name: 'plain', type: { kind: 'string' }, required: true },
    {
      name: 'kind',
      type: { kind: 'enum', values: ['report'] },
      description: "Always 'report'",
      required: true,
    },
    {
      name: 'backup_source',
      type: { kind: 'model', model: 'Source' },
      description: 'A second source',
      required: false,
    },
    { name: 'max_tokens2x', type: { kind: 'integer' }, required: false },
  ],
};

const library = new Map([source, report].map((m) => [m.name, m]));
const lookup = (name: string) => library.get(name);

describe('toJsonSchema', () => {
  it.each([
    [
      'Query',
      {
        name: 'Query',
        fields: [
          {
            name: 'query',
            type: { kind: 'string' },
            description: "The user's question",
            required: true,
          },
        ],
      },
    ],
    ['Source', source],
    ['Report', report],
  ] as [keyof typeof schemas, DataModelDef][])('emits what pydantic emits for %s', (name, def) => {
    const schema = toJsonSchema(def, lookup);
    expect(schema).toEqual(schemas[name]);
    // Same key order too, so a saved document does not change when re-saved.
    expect(JSON.stringify(schema)).toBe(JSON.stringify(schemas[name]));
  });

  it('titles fields the way Python str.title() does', () => {
    expect(fieldTitle('main_source')).toBe('Main Source');
    expect(fieldTitle('max_tokens2x')).toBe('Max Tokens2X');
    expect(fieldTitle('URL')).toBe('Url');
  });

  it('refuses a model that contains itself', () => {
    const node: DataModelDef = {
      name: 'Node',
      fields: [
        {
          name: 'children',
          type: { kind: 'list', items: { kind: 'model', model: 'Node' } },
          required: true,
        },
      ],
    };
    expect(() => toJsonSchema(node, (n) => (n === 'Node' ? node : undefined))).toThrow(
      /contains itself/,
    );
  });
});

describe('fromJsonSchema', () => {
  it.each(Object.keys(schemas) as (keyof typeof schemas)[])(
    'reads the pydantic schema of %s back unchanged',
    (name) => {
      const { model, nested } = fromJsonSchema(schemas[name] as Json);
      const defs = new Map(nested.map((n) => [n.name, n]));
      const again = toJsonSchema(model, (n) => defs.get(n));
      expect(JSON.stringify(again)).toBe(JSON.stringify(schemas[name]));
    },
  );

  it('names the path of what it cannot show', () => {
    const schema = { type: 'object', properties: { meta: { type: 'object' } }, title: 'M' };
    expect(() => fromJsonSchema(schema)).toThrow(SchemaError);
    expect(() => fromJsonSchema(schema)).toThrow(
      '$.properties.meta: inline objects are not supported',
    );
  });
});

describe('validateDataModel', () => {
  it('accepts the fixture models', () => {
    expect(validateDataModel(report, lookup)).toEqual([]);
  });

  it('explains each problem', () => {
    const bad: DataModelDef = {
      name: 'bad name',
      fields: [
        { name: 'a', type: { kind: 'integer' }, required: false, default: 'x' },
        { name: 'a', type: { kind: 'model', model: 'Missing' }, required: true },
        { name: 'e', type: { kind: 'enum', values: [] }, required: true },
      ],
    };
    expect(validateDataModel(bad, lookup)).toEqual([
      'Model name "bad name" must be a Python identifier (letters, digits, _).',
      'Field "a": the default "x" is not of type integer.',
      'Field "a" is defined twice.',
      'Field "a": unknown model "Missing".',
      'Field "e": an enum needs at least one non-empty value.',
    ]);
  });
});
