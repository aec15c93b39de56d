import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from '@/lib/csv';
import {
  barsOption,
  beforeAfter,
  exampleRows,
  examplesCsv,
  figures,
  overlayOption,
  sortExamples,
  type CompareData,
} from './compareData';

const data: CompareData = {
  runs: [
    {
      id: 1,
      name: 'base',
      state: 'succeeded',
      curves: { epoch: [0, 1], reward: [0.2, 0.4], val_reward: [0.1, 0.3], f1_score: [0.5, 0.6] },
      before: { reward: { mean: 0.2, std: 0.05 } },
      after: { reward: { mean: 0.5, std: 0.1 } },
      examples: [
        {
          input: { query: 'France?' },
          expected: { answer: 'Paris' },
          output: { answer: 'Paris' },
          reward: 1,
        },
        {
          input: { query: 'Spain?' },
          expected: { answer: 'Madrid' },
          output: { answer: 'x' },
          reward: 0,
        },
      ],
    },
    {
      id: 2,
      name: '',
      state: 'succeeded',
      curves: { epoch: [0, 1, 2], reward: [0.3, 0.5, 0.7] },
      before: { reward: { mean: 0.25, std: 0 } },
      after: null,
      examples: [
        {
          input: { query: 'France?' },
          expected: { answer: 'Paris' },
          output: { answer: 'The capital, "Paris"' },
          reward: 0,
        },
        {
          input: { query: 'Spain?' },
          expected: { answer: 'Madrid' },
          output: { answer: 'Madrid' },
          reward: 1,
        },
      ],
    },
  ],
  variables: {},
};

describe('compare data', () => {
  it('lists the figures without their val_ twins, reward first', () => {
    expect(figures(data)).toEqual(['reward', 'f1_score']);
  });

  it('overlays every run on the union of epochs', () => {
    const option = overlayOption(data, 'reward');
    expect(option.xAxis.data).toEqual(['0', '1', '2']);
    expect(option.series.map((s) => [s.name, s.data])).toEqual([
      ['#1 base reward', [0.2, 0.4, null]],
      ['#1 base val_reward', [0.1, 0.3, null]],
      ['#2 reward', [0.3, 0.5, 0.7]],
    ]);
  });

  it('makes before / after bars with mean ± std whiskers', () => {
    const bars = beforeAfter(data);
    expect(bars).toEqual([
      { run: '#1 base', before: { mean: 0.2, std: 0.05 }, after: { mean: 0.5, std: 0.1 } },
      { run: '#2', before: { mean: 0.25, std: 0 }, after: null },
    ]);
    const option = barsOption(bars);
    expect(option.series[0]).toMatchObject({ name: 'before', data: [0.2, 0.25] });
    expect(option.series[1]).toMatchObject({ name: 'after', data: [0.5, null] });
    expect(option.series[3]!.data).toEqual([
      [0, 0.4, 0.6, 1],
      [1, null, null, 1],
    ]);
  });

  it('joins examples by input and flags regressions against the first run', () => {
    const rows = exampleRows(data);
    expect(
      rows.map((r) => [r.key, r.results[1]?.reward, r.results[2]?.reward, r.regression]),
    ).toEqual([
      ['{"query":"France?"}', 1, 0, true],
      ['{"query":"Spain?"}', 0, 1, false],
    ]);
    expect(sortExamples(rows, { by: 2, desc: true }).map((r) => r.key)).toEqual([
      '{"query":"Spain?"}',
      '{"query":"France?"}',
    ]);
  });

  it('exports the table as RFC 4180 CSV', () => {
    const csv = examplesCsv(data, exampleRows(data));
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('input,expected,#1 base output,#1 base reward,#2 output,#2 reward');
    expect(lines[1]).toBe(
      '"{""query"":""France?""}","{""answer"":""Paris""}","{""answer"":""Paris""}",1,"{""answer"":""The capital, \\""Paris\\""""}",0',
    );
    expect(csvCell('a\nb')).toBe('"a\nb"');
    expect(toCsv(['x'], [[null]])).toBe('x\r\n\r\n');
  });
});
