import { epochChartOption, epochLine, isValidation, type EpochLine } from '@/lib/charts/epochChart';

/**
 * What a run's events say, shaped for the run page: state, progress, epoch curves, usage,
 * trainable variables per epoch, and the optimizer's population. Pure: the same events
 * (replayed or live, in seq order) always give the same view.
 */
export type RunEventLike = { seq: number; kind: string; payload: Record<string, unknown> };

export type Usage = {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost: number;
  mean_latency_s: number;
  failures: number;
  /** Mean time a call waited for a concurrency slot, and the provider's time, per call (ms). */
  mean_queue_ms: number;
  mean_provider_ms: number;
  /** Answers reused from the owner's response cache (not sent to the provider). */
  cached_calls: number;
  /** Calls allowed in flight now, its ceiling, and its changes (oldest first). */
  concurrency_bound: number | null;
  max_concurrency: number | null;
  concurrency_history: ConcurrencyChange[];
  /** Spent vs caps; null when the run has no caps. */
  budget: Budget | null;
};

/** One change of the concurrency bound: `reason` "start", "rate limited", "recovered"... */
export type ConcurrencyChange = { at: number | null; bound: number; reason: string };

/** The run's budget (optimizer_core/language_models/budget.py `Budget.snapshot()`). */
export type Budget = {
  calls: number;
  tokens: number;
  cost: number;
  max_calls: number | null;
  max_tokens: number | null;
  max_cost: number | null;
  /** The cap reached ("calls", "tokens", "cost"), or null. */
  exhausted: string | null;
};

export type Candidate = {
  id: string;
  reward: number | null;
  score: number | null;
  parents: string[];
  operation: string;
  kept: boolean | null;
};

export type EvaluationSummary = Record<string, { mean: number; std: number }>;

/**
 * What the `batch` events say about the work done, folded as they arrive. The server's
 * LM usage figures (calls, tokens, cost) come in `usage` events (after the evaluation
 * before training, at each epoch end, at the end) and on each `batch` event under `usage`;
 * runs recorded before batches carried it report usage at epoch ends only.
 */
export type BatchTally = {
  /** Training batches done, by epoch (a resumed run redoes an epoch: its last count wins). */
  batchesByEpoch: Record<number, number>;
  /** Failed predictions in training, by epoch (the batches' running `failures` log). */
  failuresByEpoch: Record<number, number>;
  /** Batches done since the last usage figures arrived. */
  batchesSinceUsage: number;
};

/** Where an evaluation on the test split stands (`evaluation_progress` events). */
export type EvaluationProgress = {
  phase: 'before' | 'after';
  /** 0-based: which of the run's repeated evaluations. */
  index: number;
  evaluations: number;
  rowsDone: number;
  rows: number;
};

/** Where early stopping ended training (`early_stopped`; epochs are 0-based). */
export type EarlyStop = {
  epoch: number;
  epochs: number | null;
  monitor: string;
  patience: number | null;
  minDelta: number;
  best: number | null;
  bestEpoch: number | null;
  restoredBest: boolean;
};

export type RunView = {
  state: string | null;
  error: string | null;
  epochs: number | null;
  steps: number | null;
  initialEpoch: number;
  /** The epoch being trained (or last trained) and the batches done in it. */
  epoch: number | null;
  batch: number | null;
  /** Epoch logs by epoch: the last report of an epoch wins (a resumed run redoes one). */
  epochLogs: Map<number, Record<string, number | null>>;
  usage: Usage | null;
  batches: BatchTally;
  /** Training ended (`train_end`); `trainCancelled`: it stopped early, on a cancel. */
  trainEnded: boolean;
  trainCancelled: boolean;
  /** Trainable variables at the end of each epoch. */
  variables: Map<number, Record<string, Record<string, unknown>>>;
  /** The last population of each variable, with the algorithm that ranked it. */
  populations: Record<string, { epoch: number; algorithm: string | null; candidates: Candidate[] }>;
  candidates: number;
  evaluations: { before: EvaluationSummary | null; after: EvaluationSummary | null };
  /** The evaluation under way; null before one starts and once its phase is summarised. */
  evaluating: EvaluationProgress | null;
  /** The cap a `budget_spent` event said was reached ("calls", "tokens", "cost"). */
  budgetCap: string | null;
  /** Early stopping ended training before its last epoch; null otherwise. */
  earlyStop: EarlyStop | null;
  lastSeq: number;
};

export function emptyView(): RunView {
  return {
    state: null,
    error: null,
    epochs: null,
    steps: null,
    initialEpoch: 0,
    epoch: null,
    batch: null,
    epochLogs: new Map(),
    usage: null,
    batches: { batchesByEpoch: {}, failuresByEpoch: {}, batchesSinceUsage: 0 },
    trainEnded: false,
    trainCancelled: false,
    variables: new Map(),
    populations: {},
    candidates: 0,
    evaluations: { before: null, after: null },
    evaluating: null,
    budgetCap: null,
    earlyStop: null,
    lastSeq: 0,
  };
}

const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

function candidateOf(raw: Record<string, unknown>): Candidate {
  return {
    id: String(raw.id ?? ''),
    reward: num(raw.reward),
    score: num(raw.score),
    parents: Array.isArray(raw.parents) ? raw.parents.map(String) : [],
    operation: String(raw.operation ?? ''),
    kept: typeof raw.kept === 'boolean' ? raw.kept : null,
  };
}

function usageOf(p: Record<string, unknown>): Usage {
  return {
    calls: num(p.calls) ?? 0,
    prompt_tokens: num(p.prompt_tokens) ?? 0,
    completion_tokens: num(p.completion_tokens) ?? 0,
    total_tokens: num(p.total_tokens) ?? 0,
    cost: num(p.cost) ?? 0,
    mean_latency_s: num(p.mean_latency_s) ?? 0,
    failures: num(p.failures) ?? 0,
    mean_queue_ms: num(p.mean_queue_ms) ?? 0,
    mean_provider_ms: num(p.mean_provider_ms) ?? 0,
    cached_calls: num(p.cached_calls) ?? 0,
    concurrency_bound: num(p.concurrency_bound),
    max_concurrency: num(p.max_concurrency),
    concurrency_history: Array.isArray(p.concurrency_history)
      ? p.concurrency_history.filter(isRecord).flatMap((c) => {
          const bound = num(c.bound);
          return bound === null
            ? []
            : [{ at: num(c.at), bound, reason: typeof c.reason === 'string' ? c.reason : '' }];
        })
      : [],
    budget: isRecord(p.budget) ? budgetOf(p.budget) : null,
  };
}

function budgetOf(b: Record<string, unknown>): Budget {
  return {
    calls: num(b.calls) ?? 0,
    tokens: num(b.tokens) ?? 0,
    cost: num(b.cost) ?? 0,
    max_calls: num(b.max_calls),
    max_tokens: num(b.max_tokens),
    max_cost: num(b.max_cost),
    exhausted: typeof b.exhausted === 'string' && b.exhausted ? b.exhausted : null,
  };
}

/** Whether the concurrency bound ever dropped (the provider rate limited the run). */
export function concurrencyLowered(usage: Pick<Usage, 'concurrency_history'>): boolean {
  return usage.concurrency_history.some(
    (change, i, all) =>
      change.reason === 'rate limited' ||
      (i > 0 && change.bound < (all[i - 1]?.bound ?? change.bound)),
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Fold one event into the view (returns a new view; the input is not changed). */
export function applyEvent(view: RunView, event: RunEventLike): RunView {
  if (event.seq <= view.lastSeq) return view;
  const p = event.payload;
  const next: RunView = { ...view, lastSeq: event.seq };
  switch (event.kind) {
    case 'state':
      next.state = String(p.state);
      if (typeof p.error === 'string') next.error = p.error;
      break;
    case 'error':
      next.error = `${String(p.type ?? 'Error')}: ${String(p.message ?? '')}`;
      break;
    case 'train_begin':
      next.evaluating = null;
      next.epochs = num(p.epochs);
      next.steps = num(p.steps);
      next.initialEpoch = num(p.initial_epoch) ?? 0;
      break;
    case 'epoch_begin':
      next.epoch = num(p.epoch);
      next.batch = null;
      break;
    case 'batch': {
      next.epoch = num(p.epoch);
      next.batch = num(p.batch);
      next.steps = num(p.steps) ?? next.steps;
      const logs = isRecord(p.logs) ? p.logs : {};
      const tally = view.batches;
      next.batches = {
        batchesByEpoch:
          next.epoch === null || next.batch === null
            ? tally.batchesByEpoch
            : { ...tally.batchesByEpoch, [next.epoch]: next.batch + 1 },
        failuresByEpoch:
          next.epoch === null
            ? tally.failuresByEpoch
            : { ...tally.failuresByEpoch, [next.epoch]: num(logs.failures) ?? 0 },
        batchesSinceUsage: tally.batchesSinceUsage + 1,
      };
      // A batch that carries the run's usage so far (the same figures as a `usage` event).
      if (isRecord(p.usage)) {
        next.usage = usageOf(p.usage);
        next.batches.batchesSinceUsage = 0;
      }
      break;
    }
    case 'train_end':
      next.trainEnded = true;
      next.trainCancelled = p.cancelled === true;
      break;
    case 'epoch': {
      const epochLogs = new Map(view.epochLogs);
      const logs: Record<string, number | null> = {};
      for (const [key, value] of Object.entries((p.logs as Record<string, unknown>) ?? {}))
        logs[key] = num(value);
      epochLogs.set(Number(p.epoch), logs);
      next.epochLogs = epochLogs;
      break;
    }
    case 'variables': {
      const variables = new Map(view.variables);
      variables.set(
        Number(p.epoch),
        (p.variables as Record<string, Record<string, unknown>> | undefined) ?? {},
      );
      next.variables = variables;
      break;
    }
    case 'usage':
      next.usage = usageOf(p);
      next.batches = { ...view.batches, batchesSinceUsage: 0 };
      break;
    case 'early_stopped': {
      const epoch = num(p.epoch);
      if (epoch === null) break;
      next.earlyStop = {
        epoch,
        epochs: num(p.epochs),
        monitor: typeof p.monitor === 'string' ? p.monitor : 'val_reward',
        patience: num(p.patience),
        minDelta: num(p.min_delta) ?? 0,
        best: num(p.best),
        bestEpoch: num(p.best_epoch),
        restoredBest: p.restored_best === true,
      };
      break;
    }
    case 'budget_spent':
      next.budgetCap = typeof p.cap === 'string' ? p.cap : 'calls';
      if (isRecord(p.budget) && view.usage)
        next.usage = { ...view.usage, budget: budgetOf(p.budget) };
      break;
    case 'optimizer':
      if (p.event === 'candidate') next.candidates = view.candidates + 1;
      if (p.event === 'population' && typeof p.variable === 'string') {
        const raw = Array.isArray(p.population) ? (p.population as Record<string, unknown>[]) : [];
        next.populations = {
          ...view.populations,
          [p.variable]: {
            epoch: num(p.epoch) ?? 0,
            algorithm: typeof p.algorithm === 'string' ? p.algorithm : null,
            candidates: raw.map(candidateOf),
          },
        };
      }
      break;
    case 'evaluation_progress': {
      const rows = num(p.rows);
      if (rows === null) break;
      next.evaluating = {
        phase: p.phase === 'after' ? 'after' : 'before',
        index: num(p.index) ?? 0,
        evaluations: Math.max(1, num(p.evaluations) ?? 1),
        rowsDone: Math.min(rows, num(p.rows_done) ?? 0),
        rows,
      };
      if (isRecord(p.usage)) {
        next.usage = usageOf(p.usage);
        next.batches = { ...view.batches, batchesSinceUsage: 0 };
      }
      break;
    }
    case 'evaluation_summary': {
      const phase = p.phase === 'after' ? 'after' : 'before';
      next.evaluations = { ...view.evaluations, [phase]: p.summary as EvaluationSummary };
      if (view.evaluating?.phase === phase) next.evaluating = null;
      break;
    }
    default:
      return next;
  }
  return next;
}

/** Training batches done and failed predictions, over every epoch so far. */
export function batchTotals(view: Pick<RunView, 'batches'>): {
  batches: number;
  failedPredictions: number;
} {
  const sum = (values: Record<number, number>) =>
    Object.values(values).reduce((total, value) => total + value, 0);
  return {
    batches: sum(view.batches.batchesByEpoch),
    failedPredictions: sum(view.batches.failuresByEpoch),
  };
}

export function buildView(events: RunEventLike[]): RunView {
  return events.reduce(applyEvent, emptyView());
}

/** Fraction of the training done, from epochs and batches (1 once the run finished). */
export function progress(view: RunView): number {
  if (view.state === 'succeeded') return 1;
  if (!view.epochs || view.epoch === null) return 0;
  const total = view.epochs - view.initialEpoch;
  if (total <= 0) return 1;
  const doneEpochs = view.epoch - view.initialEpoch;
  const inEpoch =
    view.epochLogs.has(view.epoch) || !view.steps ? 1 : ((view.batch ?? -1) + 1) / view.steps;
  return Math.min(1, Math.max(0, (doneEpochs + inEpoch) / total));
}

export type EpochLogs = Map<number, Record<string, number | null>>;

/** One figure over the chart's epochs; `inherited`: the epochs a fork took from its parent. */
export type Series = { name: string; data: (number | null)[]; inherited?: boolean };

export type Curves = { epochs: number[]; series: Series[] };

/** One epoch of a fork's history, trained by an ancestor (the run detail's `inherited_epochs`). */
export type InheritedEpoch = { epoch: number; run: number; logs: Record<string, unknown> };

/** A fork's inherited epochs as epoch logs. */
export function inheritedLogs(inherited: readonly InheritedEpoch[] | null | undefined): EpochLogs {
  const logs: EpochLogs = new Map();
  for (const item of inherited ?? []) {
    const figures: Record<string, number | null> = {};
    for (const [key, value] of Object.entries(item.logs)) figures[key] = num(value);
    logs.set(item.epoch, figures);
  }
  return logs;
}

/**
 * Every logged figure as a series over epochs. Figures with a `val_` twin come first,
 * each followed by its twin, so reward and val_reward sit side by side in the legend.
 * A fork's inherited epochs (its parent's, before the fork point) come as series of their
 * own, marked `inherited`, after the run's own; an epoch the run trained itself wins.
 */
export function epochCurves(view: Pick<RunView, 'epochLogs'>, inherited?: EpochLogs): Curves {
  const past = inherited ?? new Map<number, Record<string, number | null>>();
  const epochs = [...new Set([...past.keys(), ...view.epochLogs.keys()])].sort((a, b) => a - b);
  const keys = new Set<string>();
  for (const logs of [...past.values(), ...view.epochLogs.values()])
    for (const key of Object.keys(logs)) keys.add(key);
  const ordered = [...keys].sort((a, b) => {
    const base = (k: string) => k.replace(/^val_/, '');
    return base(a) === base(b) ? (a.startsWith('val_') ? 1 : -1) : base(a).localeCompare(base(b));
  });
  const own: Series[] = ordered
    .map((name) => ({ name, data: epochs.map((e) => view.epochLogs.get(e)?.[name] ?? null) }))
    // Beside inherited epochs, a figure only the parent logged has no series of the run's own.
    .filter((s) => past.size === 0 || s.data.some((v) => v !== null));
  const before: Series[] = ordered
    .map((name) => ({
      name,
      inherited: true,
      data: epochs.map((e) => (view.epochLogs.has(e) ? null : (past.get(e)?.[name] ?? null))),
    }))
    .filter((s) => s.data.some((v) => v !== null));
  return { epochs, series: [...own, ...before] };
}

export type VariableChange = { variable: string; field: string; before: unknown; after: unknown };

/** The trainable fields that changed between the epoch before `epoch` and `epoch`. */
export function variableChanges(view: Pick<RunView, 'variables'>, epoch: number): VariableChange[] {
  const after = view.variables.get(epoch);
  if (!after) return [];
  const earlier = [...view.variables.keys()].filter((e) => e < epoch).sort((a, b) => b - a)[0];
  const before = earlier === undefined ? {} : (view.variables.get(earlier) ?? {});
  const changes: VariableChange[] = [];
  for (const [name, fields] of Object.entries(after)) {
    const old = (before[name] ?? {}) as Record<string, unknown>;
    for (const [field, value] of Object.entries(fields)) {
      if (JSON.stringify(old[field]) !== JSON.stringify(value))
        changes.push({ variable: name, field, before: old[field] ?? null, after: value });
    }
  }
  return changes;
}

/** One chart per figure: `reward` with `val_reward`, `f1_score` with `val_f1_score`... */
export function curveGroups(curves: Curves): { title: string; series: Series[] }[] {
  const groups = new Map<string, Curves['series']>();
  for (const series of curves.series) {
    const base = series.name.replace(/^val_/, '');
    groups.set(base, [...(groups.get(base) ?? []), series]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === 'reward' ? -1 : b === 'reward' ? 1 : a.localeCompare(b)))
    .map(([title, series]) => ({ title, series }));
}

/** How a fork's inherited epochs look: grey and dashed, beside the run's own colours. */
export const INHERITED_COLOUR = '#8b95a5';

/** The legend name of a series: its figure, and the run it was inherited from. */
export function seriesName(series: Series, inheritedFrom: number | null): string {
  if (!series.inherited) return series.name;
  return `${series.name} (inherited from ${inheritedFrom === null ? 'the parent run' : `run #${inheritedFrom}`})`;
}

/**
 * The ECharts option of one figure over epochs. `inheritedFrom`: the parent a fork's
 * inherited series came from (named in their legend).
 */
export function lineOption(
  title: string,
  epochs: number[],
  series: Series[],
  inheritedFrom: number | null = null,
) {
  return epochChartOption(
    title,
    epochs,
    series.map((s): EpochLine =>
      s.inherited
        ? {
            name: seriesName(s, inheritedFrom),
            type: 'line',
            data: s.data,
            showSymbol: true,
            symbol: 'emptyCircle',
            connectNulls: false,
            color: INHERITED_COLOUR,
            lineStyle: { type: isValidation(s.name) ? 'dotted' : 'dashed', opacity: 0.8 },
          }
        : { ...epochLine(s.name, s.name, s.data), showSymbol: true },
    ),
  );
}
