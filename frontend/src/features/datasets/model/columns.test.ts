import { describe, expect, it } from 'vitest';
import { defaultMapping, fileColumns, parseCsvLine } from './columns';

describe('file columns', () => {
  it('reads a CSV header with quotes and a BOM', () => {
    expect(fileColumns('a.csv', '\uFEFFquestion,"the, answer"\r\nq,a\r\n')).toEqual([
      'question',
      'the, answer',
    ]);
    expect(parseCsvLine('a,"b ""x""",c')).toEqual(['a', 'b "x"', 'c']);
  });
  it('reads the first object of JSONL and JSON', () => {
    expect(fileColumns('a.jsonl', '{"query": "q", "answer": "a"}\n{"query": 1}')).toEqual([
      'query',
      'answer',
    ]);
    expect(fileColumns('a.json', '[{"query": "q", "answer": "a"}, {"que')).toEqual([
      'query',
      'answer',
    ]);
  });
  it('maps each field to the column of its name, ignoring case', () => {
    expect(defaultMapping(['query', 'answer'], ['Query', 'answer', 'x'])).toEqual({
      query: 'Query',
      answer: 'answer',
    });
  });
});
