import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from '@/lib/csv';
import {
  barsOption,
  beforeAfter,
  changeBaseline,
  exampleRows,
  examplesCsv,
  figures,
  filterExamples,
  overlayOption,
  sortExamples,
  type CompareData,
  type RunExamples,
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
      example_count: 2,
    },
    {
      id: 2,
      name: '',
      state: 'succeeded',
      curves: { epoch: [0, 1, 2], reward: [0.3, 0.5, 0.7] },
      before: { reward: { mean: 0.25, std: 0 } },
      after: null,
      example_count: 2,
    },
  ],
  variables: {},
};

/** Each run's rows, as the examples endpoint pages them. */
const france = {
  input: { query: 'France?' },
  expected: { answer: 'Paris' },
  output: { answer: 'Paris' },
  reward: 1,
};
const examples: RunExamples = new Map([
  [
    1,
    [
      france,
      {
        input: { query: 'Spain?' },
        expected: { answer: 'Madrid' },
        output: { answer: 'x' },
        reward: 0,
      },
    ],
  ],
  [
    2,
    [
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
  ],
]);

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

  it('joins examples by input and says which got better or worse than the first run', () => {
    const rows = exampleRows(data, examples);
    expect(
      rows.map((r) => [r.key, r.results[1]?.reward, r.results[2]?.reward, r.better, r.worse]),
    ).toEqual([
      ['{"query":"France?"}', 1, 0, false, true],
      ['{"query":"Spain?"}', 0, 1, true, false],
    ]);
    expect(changeBaseline(data)).toBe('#1 base');
    expect(filterExamples(rows, 'better').map((r) => r.key)).toEqual(['{"query":"Spain?"}']);
    expect(filterExamples(rows, 'worse').map((r) => r.key)).toEqual(['{"query":"France?"}']);
    expect(filterExamples(rows, 'all')).toHaveLength(2);
    expect(sortExamples(rows, { by: 2, desc: true }).map((r) => r.key)).toEqual([
      '{"query":"Spain?"}',
      '{"query":"France?"}',
    ]);
  });

  it('with one run, compares each row after training with the same row before', () => {
    const example = (query: string, before: number | null, after: number) => ({
      input: { query },
      expected: { answer: 'x' },
      output: { answer: 'y' },
      reward: after,
      before_reward: before,
      after_reward: after,
    });
    const one: CompareData = { runs: [{ ...data.runs[0]!, example_count: 4 }], variables: {} };
    const rows = exampleRows(
      one,
      new Map([
        [
          1,
          [
            example('up', 0, 1),
            example('down', 1, 0),
            example('same', 1, 1),
            example('unknown', null, 1),
          ],
        ],
      ]),
    );
    expect(changeBaseline(one)).toBe('before training');
    expect(rows.map((r) => [r.input, r.better, r.worse])).toEqual([
      [{ query: 'up' }, true, false],
      [{ query: 'down' }, false, true],
      [{ query: 'same' }, false, false],
      [{ query: 'unknown' }, false, false],
    ]);
    expect(filterExamples(rows, 'better').map((r) => r.input)).toEqual([{ query: 'up' }]);
    expect(filterExamples(rows, 'worse').map((r) => r.input)).toEqual([{ query: 'down' }]);
  });

  it('judges a change by the per-row mean after training when the run stored one', () => {
    const repeated: CompareData = { runs: [{ ...data.runs[0]!, example_count: 1 }], variables: {} };
    const [row] = exampleRows(
      repeated,
      // The output shown scored 1 in the last evaluation; over all of them, 0.5.
      new Map([[1, [{ ...france, reward: 1, before_reward: 0.75, after_reward: 0.5 }]]]),
    );
    expect(row!.results[1]).toMatchObject({ reward: 1, after: 0.5, before: 0.75 });
    expect([row!.better, row!.worse]).toEqual([false, true]);
  });

  it('exports the table as RFC 4180 CSV', () => {
    const csv = examplesCsv(data, exampleRows(data, examples));
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('input,expected,#1 base output,#1 base reward,#2 output,#2 reward');
    expect(lines[1]).toBe(
      '"{""query"":""France?""}","{""answer"":""Paris""}","{""answer"":""Paris""}",1,"{""answer"":""The capital, \\""Paris\\""""}",0',
    );
    expect(csvCell('a\nb')).toBe('"a\nb"');
    expect(toCsv(['x'], [[null]])).toBe('x\r\n\r\n');
  });

  it("exports each run's feedback beside its reward, once some row has feedback", () => {
    const withFeedback: RunExamples = new Map([
      [
        1,
        [
          { ...france, feedback: null, before_feedback: "answer: expected 'Paris', got 'Lyon'" },
          {
            input: { query: 'Spain?' },
            expected: { answer: 'Madrid' },
            output: { answer: 'x' },
            reward: 0,
            feedback: "answer: expected 'Madrid', got 'x'",
          },
        ],
      ],
      [2, examples.get(2)!],
    ]);
    const lines = examplesCsv(data, exampleRows(data, withFeedback)).split('\r\n');
    expect(lines[0]).toBe(
      'input,expected,' +
        '#1 base output,#1 base reward,#1 base feedback,#1 base feedback before,' +
        '#2 output,#2 reward,#2 feedback,#2 feedback before',
    );
    // France: run 1 said nothing after training, something before; run 2 nothing.
    expect(lines[1]).toBe(
      '"{""query"":""France?""}","{""answer"":""Paris""}","{""answer"":""Paris""}",1,,' +
        `"answer: expected 'Paris', got 'Lyon'",` +
        '"{""answer"":""The capital, \\""Paris\\""""}",0,,',
    );
    expect(lines[2]).toContain(`,0,"answer: expected 'Madrid', got 'x'",,`);
  });

  it('exports no feedback column when no row has feedback', () => {
    const header = examplesCsv(data, exampleRows(data, examples)).split('\r\n')[0];
    expect(header).not.toContain('feedback');
  });
});
