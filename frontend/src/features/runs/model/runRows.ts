import type { PairedComparison, Run } from '@/lib/api/types';
import { signed } from '@/lib/verdict';

/** The key figures of a run, for the runs table. */
export type RunRow = {
  id: number;
  name: string;
  state: string;
  /** The program and the version trained, e.g. "Capitals v2". */
  program: string;
  dataset: string;
  optimizer: string | null;
  epochs: string;
  before: number | null;
  after: number | null;
  /** After minus before on the test rows, paired, as the run stored its verdict. */
  gain: number | null;
  /** The gain's 95% interval and n, and its verdict, e.g. "[+0.050, +0.200] n = 100". */
  gainInterval: string | null;
  verdict: PairedComparison['verdict'] | null;
  calls: number | null;
  cost: number | null;
  created: string;
};
export type SortKey = keyof RunRow;

function rewardMean(phase: unknown): number | null {
  const mean = (phase as { summary?: { reward?: { mean?: unknown } } } | null)?.summary?.reward
    ?.mean;
  return typeof mean === 'number' ? mean : null;
}

export function runRows(runs: Run[]): RunRow[] {
  return runs.map((run) => {
    const before = rewardMean(run.before);
    const after = rewardMean(run.after);
    const usage = (run.usage ?? {}) as { calls?: number; cost?: number };
    const fit = (run.fit_config ?? {}) as { epochs?: number };
    return {
      id: run.id,
      name: run.name,
      state: run.state,
      program: `${run.program_name} v${run.version_number}`,
      dataset: run.dataset_name,
      optimizer: run.optimizer,
      epochs: `${run.current_epoch}/${fit.epochs ?? '?'}`,
      before,
      after,
      gain: run.gain?.difference ?? null,
      gainInterval: run.gain
        ? `[${signed(run.gain.ci_low)}, ${signed(run.gain.ci_high)}] n = ${run.gain.n}`
        : null,
      verdict: run.gain?.verdict ?? null,
      calls: typeof usage.calls === 'number' ? usage.calls : null,
      cost: typeof usage.cost === 'number' ? usage.cost : null,
      created: run.created_at,
    };
  });
}

/** Sort by one column; missing values (null) always go last. */
export function sortRows(rows: RunRow[], key: SortKey, desc: boolean): RunRow[] {
  return [...rows].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (x === null && y === null) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    const order =
      typeof x === 'number' && typeof y === 'number'
        ? x - y
        : String(x).localeCompare(String(y), undefined, { numeric: true });
    return desc ? -order : order;
  });
}
