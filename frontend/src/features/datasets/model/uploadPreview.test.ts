import { describe, expect, it } from 'vitest';
import { csvRecords, fieldType, mapRows, readHead } from './uploadPreview';

const INPUT = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };
const OUTPUT = {
  type: 'object',
  required: ['answer'],
  properties: {
    answer: { type: 'number' },
    tags: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
  },
};

describe('reading the start of a file', () => {
  it('reads CSV records with quoted commas, quotes and line breaks, on their first line', () => {
    const text = '\uFEFFquestion,answer\r\n"a, b",1\r\n"two\nlines","say ""hi"""\r\n\r\nlast,3';
    expect(csvRecords(text, true)).toEqual([
      { line: 1, cells: ['question', 'answer'] },
      { line: 2, cells: ['a, b', '1'] },
      { line: 3, cells: ['two\nlines', 'say "hi"'] },
      { line: 6, cells: ['last', '3'] },
    ]);
    // Cut off: the last record may be partial, so it is left out.
    expect(csvRecords(text, false).map((r) => r.line)).toEqual([1, 2, 3]);
  });

  it('gives CSV rows by column, and says which have the wrong number of values', () => {
    expect(readHead('rows.csv', 'q,a\nx,1\ny\n', true)).toEqual([
      { line: 2, values: { q: 'x', a: '1' } },
      { line: 3, error: '1 values, but the header has 2 columns', raw: 'y' },
    ]);
  });

  it('reads JSON Lines, numbering the file lines and naming a line that is not JSON', () => {
    const head = '{"query": "a", "answer": 1}\n\n{"query": "b"\n[1]\n{"query": "cu';
    const rows = readHead('rows.jsonl', head, false);
    expect(rows[0]).toEqual({ line: 1, values: { query: 'a', answer: 1 } });
    expect(rows[1]).toMatchObject({ line: 3, raw: '{"query": "b"' });
    expect(rows[2]).toEqual({ line: 4, error: 'not an object', raw: '[1]' });
    expect(rows).toHaveLength(3); // the cut-off last line is not read
  });

  it('reads the items of a JSON array, even cut off, by their position', () => {
    const head = '[{"query": "a ] {", "answer": 1},\n {"query": "b", "answer": [2]}, 7, {"query"';
    expect(readHead('rows.json', head, false)).toEqual([
      { line: 1, values: { query: 'a ] {', answer: 1 } },
      { line: 2, values: { query: 'b', answer: [2] } },
      { line: 3, error: 'not an object', raw: '7' },
    ]);
    expect(readHead('rows.json', '[{"a": 1}, {"a": 2}, {"a": 3}]', true, 2)).toHaveLength(2);
  });
});

describe('rows through the mapping', () => {
  it('puts each field under input or output from its column, as the server reads CSV', () => {
    // Line 3 has no answer (required) and no tags (optional: not a problem).
    const rows = readHead('rows.csv', 'question,answer,tags\nWhat?,4.5,"[""x""]"\nWhy?,,\n', true);
    expect(
      mapRows(rows, {
        inputSchema: INPUT,
        outputSchema: OUTPUT,
        mapping: { query: 'question' },
        csv: true,
      }),
    ).toEqual([
      {
        line: 2,
        input: { query: 'What?' },
        output: { answer: 4.5, tags: ['x'] },
        missing: [],
        error: null,
        raw: null,
      },
      {
        line: 3,
        input: { query: 'Why?' },
        output: {},
        missing: ['answer'],
        error: null,
        raw: null,
      },
    ]);
  });

  it('keeps JSON values as they are and carries unreadable rows through', () => {
    const rows = readHead('rows.jsonl', '{"q": "a", "answer": "7"}\nnope\n', true);
    const mapped = mapRows(rows, {
      inputSchema: INPUT,
      outputSchema: OUTPUT,
      mapping: { query: 'q' },
      csv: false,
    });
    expect(mapped[0]).toMatchObject({
      input: { query: 'a' },
      output: { answer: '7' },
      missing: [],
    });
    expect(mapped[1]).toMatchObject({ line: 2, input: null, raw: 'nope' });
    expect(mapped[1]!.error).toMatch(/^not valid JSON/);
  });

  it("finds a field's type, through an optional's anyOf", () => {
    expect(fieldType(OUTPUT, 'answer')).toBe('number');
    expect(fieldType(OUTPUT, 'tags')).toBe('array');
    expect(fieldType(OUTPUT, 'nothing')).toBeNull();
  });
});
