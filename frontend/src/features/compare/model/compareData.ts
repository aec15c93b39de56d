import type { PairedComparison, Versus } from '@/lib/api/types';
import { epochChartOption, epochLine } from '@/lib/charts/epochChart';
import { toCsv } from '@/lib/csv';

/** What GET /api/runs/compare/ returns (studio/runs/compare.py). */
export type Stat = { mean: number; std: number };
/** A run's test row after training (GET /api/runs/{id}/examples/). */
export type CompareExample = {
  input: unknown;
  expected: unknown;
  output: unknown;
  /** The reward of `output` (the last evaluation after training). */
  reward: number;
  /** The row's reward before / after training (means over repeats); null if not stored. */
  before_reward?: number | null;
  after_reward?: number | null;
  /** What the reward said of `output` / of the row's output before training (null: nothing). */
  feedback?: string | null;
  before_feedback?: string | null;
  /** What each module got and said on the row (`TraceStep.as_json()`s). */
  trace?: unknown;
};
export type CompareRun = {
  id: number;
  name: string;
  state: string;
  dataset?: number;
  curves: Record<string, (number | null)[]> & { epoch: number[] };
  before: Record<string, Stat> | null;
  after: Record<string, Stat> | null;
  /** Test rows stored after training: the rows come from the run's examples endpoint. */
  example_count: number;
  /** After against its own before, row by row. */
  gain?: PairedComparison | null;
  /** After against the first run's after (null for the first run). */
  versus?: Versus | null;
};
export type CompareData = {
  runs: CompareRun[];
  variables: Record<
    string,
    { values: Record<string, Record<string, unknown>>; changed_fields: string[] }
  >;
};

export const runLabel = (run: Pick<CompareRun, 'id' | 'name'>) =>
  run.name ? `#${run.id} ${run.name}` : `#${run.id}`;

/** The figures any run logged per epoch, without the `val_` twins (they come along). */
export function figures(data: CompareData): string[] {
  const names = new Set<string>();
  for (const run of data.runs)
    for (const key of Object.keys(run.curves))
      if (key !== 'epoch') names.add(key.replace(/^val_/, ''));
  return [...names].sort((a, b) => (a === 'reward' ? -1 : b === 'reward' ? 1 : a.localeCompare(b)));
}

/** Every run's curve of `figure` (and its `val_` twin, dashed) on one chart over epochs. */
export function overlayOption(data: CompareData, figure: string) {
  const epochs = [...new Set(data.runs.flatMap((r) => r.curves.epoch ?? []))].sort((a, b) => a - b);
  const series = data.runs.flatMap((run) =>
    [figure, `val_${figure}`]
      .filter((key) => Array.isArray(run.curves[key]))
      .map((key) => {
        const byEpoch = new Map(
          (run.curves.epoch ?? []).map((e, i) => [e, run.curves[key]?.[i] ?? null]),
        );
        return epochLine(
          `${runLabel(run)} ${key}`,
          key,
          epochs.map((e) => byEpoch.get(e) ?? null),
        );
      }),
  );
  return epochChartOption(`${figure} per epoch`, epochs, series, { legend: 'below' });
}

export type Bar = { run: string; before: Stat | null; after: Stat | null };

export function beforeAfter(data: CompareData, figure = 'reward'): Bar[] {
  return data.runs.map((run) => ({
    run: runLabel(run),
    before: run.before?.[figure] ?? null,
    after: run.after?.[figure] ?? null,
  }));
}

/** Before / after bars per run, with a mean ± std whisker on each bar. */
export function barsOption(bars: Bar[], figure = 'reward') {
  const phases = ['before', 'after'] as const;
  const whiskers = phases.map((phase, p) => ({
    name: `${phase} ± std`,
    type: 'custom',
    // [category index, low, high, which bar of the pair]
    data: bars.map((b, i) => {
      const s = b[phase];
      return s ? [i, s.mean - s.std, s.mean + s.std, p] : [i, null, null, p];
    }),
    renderItem: (
      _params: unknown,
      api: {
        value: (i: number) => number;
        coord: (v: [number, number]) => [number, number];
        size: (v: [number, number]) => [number, number];
      },
    ) => {
      const low = api.value(1);
      const high = api.value(2);
      if (low === null || high === null || Number.isNaN(low)) return null;
      const band = api.size([1, 0])[0];
      const offset = (api.value(3) === 0 ? -1 : 1) * band * 0.18;
      const [x, yLow] = api.coord([api.value(0), low]);
      const [, yHigh] = api.coord([api.value(0), high]);
      const cx = x + offset;
      const style = { stroke: '#1d2430', lineWidth: 1.5 };
      return {
        type: 'group',
        children: [
          { type: 'line', shape: { x1: cx, y1: yLow, x2: cx, y2: yHigh }, style },
          { type: 'line', shape: { x1: cx - 5, y1: yLow, x2: cx + 5, y2: yLow }, style },
          { type: 'line', shape: { x1: cx - 5, y1: yHigh, x2: cx + 5, y2: yHigh }, style },
        ],
      };
    },
    z: 10,
    tooltip: { show: false },
  }));
  return {
    animation: false,
    title: {
      text: `${figure} before / after training (mean ± std)`,
      left: 0,
      textStyle: { fontSize: 13 },
    },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    legend: { top: 30, data: ['before', 'after'] },
    grid: { left: 44, right: 16, top: 64, bottom: 30 },
    xAxis: { type: 'category', data: bars.map((b) => b.run) },
    yAxis: { type: 'value', min: 0 },
    series: [
      ...phases.map((phase) => ({
        name: phase,
        type: 'bar',
        barGap: '0%',
        barWidth: '36%',
        data: bars.map((b) => (b[phase] ? Number(b[phase]!.mean.toFixed(4)) : null)),
      })),
      ...whiskers,
    ],
  };
}

export type ExampleResult = {
  output: unknown;
  /** The reward of `output`. */
  reward: number;
  /** The row's reward after training: the mean over repeats when stored, else `reward`. */
  after: number;
  /** The row's reward before training, when the run stored it. */
  before: number | null;
  /** What the reward said of `output` (null: nothing). */
  feedback: string | null;
  /** What it said of the row's output before training (null: nothing, or not stored). */
  beforeFeedback: string | null;
  /** What each module got and said on the row (`src/lib/trace/trace.ts` reads it). */
  trace: unknown;
};

export type ExampleRow = {
  key: string;
  input: unknown;
  expected: unknown;
  results: Record<number, ExampleResult | undefined>;
  /** One run: scored higher after training than before. Several: some run scored higher
   * than the first (baseline) run. */
  better: boolean;
  /** The same, lower: a regression. */
  worse: boolean;
};

/** Which rows the per-example table shows. */
export type ExampleFilter = 'all' | 'better' | 'worse';

/** What a row got better or worse against: its own before (one run), or the first run. */
export function changeBaseline(data: CompareData): string {
  const first = data.runs[0];
  if (!first) return '';
  return data.runs.length === 1 ? 'before training' : runLabel(first);
}

export function filterExamples(rows: ExampleRow[], filter: ExampleFilter): ExampleRow[] {
  if (filter === 'better') return rows.filter((r) => r.better);
  if (filter === 'worse') return rows.filter((r) => r.worse);
  return rows;
}

/** A row's changes: after minus before (one run), or each other run minus the first. */
function rowChanges(row: ExampleRow, first: CompareRun, others: CompareRun[]): number[] {
  const base = row.results[first.id];
  if (!base) return [];
  if (others.length === 0) return base.before === null ? [] : [base.after - base.before];
  return others.flatMap((run) => {
    const result = row.results[run.id];
    return result ? [result.after - base.after] : [];
  });
}

/** Each run's test rows in row order, by run id (every page of its examples endpoint). */
export type RunExamples = ReadonlyMap<number, readonly CompareExample[]>;

/**
 * One row per test example (matched by input), each run's output and reward beside, and
 * whether it got better or worse: after training against before for one run, each run
 * against the first for several (rewards are the per-row means when the runs stored them).
 */
export function exampleRows(data: CompareData, examples: RunExamples): ExampleRow[] {
  const rows = new Map<string, ExampleRow>();
  for (const run of data.runs) {
    for (const example of examples.get(run.id) ?? []) {
      const key = JSON.stringify(example.input);
      let row = rows.get(key);
      if (!row) {
        row = {
          key,
          input: example.input,
          expected: example.expected,
          results: {},
          better: false,
          worse: false,
        };
        rows.set(key, row);
      }
      row.results[run.id] = {
        output: example.output,
        reward: example.reward,
        after: example.after_reward ?? example.reward,
        before: example.before_reward ?? null,
        feedback: example.feedback || null,
        beforeFeedback: example.before_feedback || null,
        trace: example.trace,
      };
    }
  }
  const [first, ...others] = data.runs;
  for (const row of rows.values()) {
    const changes = first ? rowChanges(row, first, others) : [];
    row.better = changes.some((change) => change > 0);
    row.worse = changes.some((change) => change < 0);
  }
  return [...rows.values()];
}

/** Whether the reward said something of some row of some run (the table shows feedback). */
export function hasFeedback(rows: readonly ExampleRow[]): boolean {
  return rows.some((row) =>
    Object.values(row.results).some((result) => !!(result?.feedback || result?.beforeFeedback)),
  );
}

export type ExampleSort = { by: 'input' | number; desc: boolean };

export function sortExamples(rows: ExampleRow[], sort: ExampleSort): ExampleRow[] {
  const value = (row: ExampleRow) =>
    sort.by === 'input' ? row.key : (row.results[sort.by]?.reward ?? -Infinity);
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const order =
      typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return sort.desc ? -order : order;
  });
}

/**
 * The per-example table as CSV: input, expected, then each run's output and reward, and
 * beside the reward what it said of the row (`feedback`) when it said something of some row,
 * and of the row's output before training (`feedback before`) when it did so of some row.
 */
export function examplesCsv(data: CompareData, rows: ExampleRow[]): string {
  const some = (key: 'feedback' | 'beforeFeedback') =>
    rows.some((row) => Object.values(row.results).some((result) => !!result?.[key]));
  const withFeedback = some('feedback');
  const withBefore = some('beforeFeedback');
  const columns = [
    'input',
    'expected',
    ...data.runs.flatMap((r) => [
      `${runLabel(r)} output`,
      `${runLabel(r)} reward`,
      ...(withFeedback ? [`${runLabel(r)} feedback`] : []),
      ...(withBefore ? [`${runLabel(r)} feedback before`] : []),
    ]),
  ];
  return toCsv(
    columns,
    rows.map((row) => [
      row.input,
      row.expected,
      ...data.runs.flatMap((r) => {
        const result = row.results[r.id];
        return [
          result?.output ?? null,
          result?.reward ?? null,
          ...(withFeedback ? [result?.feedback ?? null] : []),
          ...(withBefore ? [result?.beforeFeedback ?? null] : []),
        ];
      }),
    ]),
  );
}
