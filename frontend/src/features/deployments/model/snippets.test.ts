import { describe, expect, it } from 'vitest';
import { curlSnippet, exampleInput, exampleValue, pythonLiteral, pythonSnippet } from './snippets';

// What pydantic emits for `class Query(DataModel): query: str = Field(description=...)`.
const QUERY = {
  additionalProperties: false,
  properties: { query: { description: "The user's question", title: 'Query', type: 'string' } },
  required: ['query'],
  title: 'Query',
  type: 'object',
};
const URL = 'http://127.0.0.1:8000/api/deployments/capitals/predict/';

describe('exampleValue', () => {
  it('fills every field of the input model by its type', () => {
    expect(exampleValue(QUERY)).toEqual({ query: 'Query…' });
    expect(
      exampleValue({
        $defs: { Level: { enum: ['low', 'high'], type: 'string' } },
        properties: {
          n: { type: 'integer', minimum: 1 },
          ok: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' } },
          level: { $ref: '#/$defs/Level' },
          note: { anyOf: [{ type: 'null' }, { type: 'number' }] },
          k: { type: 'integer', default: 3 },
        },
        type: 'object',
      }),
    ).toEqual({ n: 1, ok: false, tags: ['…'], level: 'low', note: 0, k: 3 });
  });

  it('gives a list, one object per input, for a program with several inputs', () => {
    const entries = [
      { name: 'a', schema: QUERY },
      { name: 'b', schema: QUERY },
    ];
    expect(exampleInput(entries, false)).toEqual([{ query: 'Query…' }, { query: 'Query…' }]);
    expect(exampleInput(entries.slice(0, 1), true)).toEqual({ query: 'Query…' });
  });
});

describe('snippets', () => {
  it('curl posts the input to the real URL, the token read from the environment', () => {
    const text = curlSnippet(URL, { query: "What's the capital of France?" });
    expect(text).toBe(
      [
        `curl -X POST '${URL}' \\`,
        `  -H "Authorization: Token $STUDIO_TOKEN" \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  -d '{"input":{"query":"What'\\''s the capital of France?"}}'`,
      ].join('\n'),
    );
  });

  it('Python sends the same body with requests', () => {
    const text = pythonSnippet(URL, { query: 'France?', flag: true, none: null });
    expect(text).toContain(`    "${URL}",`);
    expect(text).toContain(`os.environ['STUDIO_TOKEN']`);
    expect(text).toContain(
      '    json={"input": {\n        "query": "France?",\n        "flag": True,\n        "none": None,\n    }},',
    );
    expect(text).toContain('response.raise_for_status()');
  });

  it('writes JSON as Python literals', () => {
    expect(pythonLiteral([1, 'a', false, [], {}])).toBe(
      '[\n    1,\n    "a",\n    False,\n    [],\n    {},\n]',
    );
  });
});
