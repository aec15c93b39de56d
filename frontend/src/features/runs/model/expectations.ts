/**
 * What the run form expects of a run beyond its LM calls: how long it takes, how many tokens
 * it spends and what it costs, each from what the user's recent finished runs on the same
 * provider measured (GET /api/runs/throughput/, studio/runs/throughput.py), never from a
 * constant. A figure nothing measured yet is said to be unknown. Pure.
 */
import type { Planned } from './budget';

/** The measured figures (the API's Throughput). */
export type Throughput = {
  /** Whether the provider is the bundled local model. */
  local?: boolean;
  /** The catalogue name of the optimizer asked about, null (or absent) when none was. */
  optimizer?: string | null;
  runs: number;
  calls_per_second: number | null;
  /** Whose runs the pace is from: the optimizer's on this provider, or any on it. */
  pace_from?: 'optimizer' | 'provider' | null;
  tokens_per_call: number | null;
  tokens_from: 'program_optimizer' | 'program' | 'optimizer' | 'provider' | null;
  tokens_runs: number;
  cost_per_token: number | null;
  prices: 'priced' | 'free' | 'unknown';
  cost_runs: number;
};

export type Expectation = { value: number | null; text: string };

/** "40 s", "3 min", "1 h 20 min": as precise as an estimate deserves. */
export function durationText(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

function rate(callsPerSecond: number): string {
  if (callsPerSecond >= 10) return String(Math.round(callsPerSecond));
  if (callsPerSecond >= 0.1) return callsPerSecond.toFixed(1);
  return callsPerSecond.toPrecision(2);
}

const lastRuns = (runs: number, of: string) =>
  runs === 1 ? `your last run ${of}` : `your last ${runs} runs ${of}`;

/**
 * The bundled model's pace before any run of the user's measured it: the demo's default run
 * on an otherwise idle 2-core machine, 484 LM calls in 140 s, evaluations included
 * (tests/browser/test_demo_learns.py, README). A newcomer's first run gets a duration too.
 */
export const BUNDLED_MODEL_PACE = 3.5;

/**
 * What one of OMEGA's mutation / crossover calls takes on the bundled model, in predictions'
 * time, for the duration before any OMEGA run of the user's measured it. bench/omega_local
 * (docs/benchmarks.md, "OMEGA on the bundled model"), default runs of 2 epochs, batch 8, 100
 * training rows: on the demo, OMEGA's 499 predictions and 26 mutation calls took 402 s where
 * RandomFewShot's 490 predictions took 324 s (1.51 calls/s), about 4 predictions' time per
 * mutation; on five BANKING77 intents 390 s against 254 s (1.92 calls/s), about 10. One run
 * each under load: 7, between the two.
 */
export const BUNDLED_OPTIMIZER_CALL_COST = 7;

/**
 * The expected duration: the estimated calls at the provider's observed pace (calls per
 * second of a run's wall time, the median of the user's last finished runs on it); for the
 * bundled model without such a run, its pace measured on 2 cores, said so.
 */
export function expectedDuration(
  calls: number,
  throughput: Throughput,
  optimizerCalls = 0,
): Expectation {
  const pace = throughput.calls_per_second;
  const optimizer = throughput.optimizer ?? null;
  const own = throughput.pace_from === 'optimizer' && optimizer !== null;
  if (pace === null || pace <= 0 || throughput.runs === 0) {
    if (throughput.local) {
      const weighted = calls + (BUNDLED_OPTIMIZER_CALL_COST - 1) * optimizerCalls;
      const seconds = weighted / BUNDLED_MODEL_PACE;
      return {
        value: seconds,
        text: `≈ ${durationText(seconds)} (the bundled model's pace on 2 cores, ${rate(BUNDLED_MODEL_PACE)} calls/s; your own runs will replace it${bundledOptimizerCost(optimizer, optimizerCalls)})`,
      };
    }
    return { value: null, text: 'no finished run on this provider yet: duration unknown' };
  }
  const seconds = calls / pace;
  const of = own ? `with ${optimizer} on this provider` : 'on this provider';
  const none = optimizer !== null && !own ? `; none with ${optimizer} measured yet` : '';
  return {
    value: seconds,
    text: `≈ ${durationText(seconds)} (from ${lastRuns(throughput.runs, of)}, ${rate(pace)} calls/s${none}${optimizerCost(optimizer, own, optimizerCalls)})`,
  };
}

/**
 * What the optimizer's own calls (OMEGA's mutations and crossovers) cost in the duration:
 * included in the pace its runs measured, or, without one, counted at a prediction's pace,
 * which is the call count only (each writes a whole variable, so it takes longer).
 */
function optimizerCost(optimizer: string | null, own: boolean, optimizerCalls: number): string {
  if (optimizer === null || optimizerCalls <= 0) return '';
  const them = `${optimizer}'s ${optimizerCalls.toLocaleString('en-US')} mutation / crossover calls`;
  return own
    ? `; ${them} included in that pace`
    : `; ${them} counted as predictions: from the call count only, each writes a whole variable and takes longer`;
}

/** The same for the bundled model before any run measured it: each call at its measured cost. */
function bundledOptimizerCost(optimizer: string | null, optimizerCalls: number): string {
  if (optimizer === null || optimizerCalls <= 0) return '';
  return `; ${optimizer}'s ${optimizerCalls.toLocaleString('en-US')} mutation / crossover calls counted as ${BUNDLED_OPTIMIZER_CALL_COST} predictions each, as measured on this model`;
}

/** Whose runs tokens per call is from, as the form says it. */
function tokensOf(throughput: Throughput): string {
  const optimizer = throughput.optimizer ?? 'the optimizer';
  switch (throughput.tokens_from) {
    case 'program_optimizer':
      return `of this program with ${optimizer} on this provider`;
    case 'program':
      return 'of this program on this provider';
    case 'optimizer':
      return `with ${optimizer} on this provider`;
    default:
      return 'on this provider';
  }
}

/** The expected tokens: the estimated calls at the tokens per call observed. */
export function expectedTokens(calls: number, throughput: Throughput): Expectation {
  const perCall = throughput.tokens_per_call;
  if (perCall === null || throughput.tokens_runs === 0) {
    return {
      value: null,
      text: 'no finished run on this provider reported tokens yet: tokens unknown',
    };
  }
  const tokens = Math.round(calls * perCall);
  const of = tokensOf(throughput);
  return {
    value: tokens,
    text: `≈ ${tokens.toLocaleString('en-US')} tokens (${Math.round(perCall).toLocaleString('en-US')} per call, from ${lastRuns(throughput.tokens_runs, of)})`,
  };
}

function dollars(value: number): string {
  if (value === 0) return '$0';
  return value >= 0.01 ? `$${value.toFixed(2)}` : `$${value.toPrecision(2)}`;
}

/**
 * The expected cost, where the provider has prices: the expected tokens at the cost per
 * token litellm priced the provider's last runs at. The bundled model costs $0; a provider
 * litellm cannot price has no cost figure, and says so.
 */
export function expectedCost(tokens: number | null, throughput: Throughput): Expectation {
  if (throughput.prices === 'free') {
    return { value: 0, text: '$0: the bundled model costs nothing' };
  }
  if (throughput.prices === 'unknown' || throughput.cost_per_token === null) {
    return {
      value: null,
      text:
        throughput.cost_runs > 0
          ? "litellm has no prices for this provider's model: cost unknown"
          : 'no priced run on this provider yet: cost unknown',
    };
  }
  if (tokens === null) return { value: null, text: 'tokens unknown: cost unknown' };
  const cost = tokens * throughput.cost_per_token;
  const perMillion = throughput.cost_per_token * 1_000_000;
  return {
    value: cost,
    text: `≈ ${dollars(cost)} (${dollars(perMillion)} per million tokens, as litellm priced ${lastRuns(throughput.cost_runs, 'on this provider')})`,
  };
}

/** The estimate to weigh against the caps: calls always, tokens and cost where known. */
export function plannedUsage(calls: number, throughput: Throughput | null): Planned {
  if (!throughput) return { calls };
  const tokens = expectedTokens(calls, throughput).value;
  return { calls, tokens, cost: expectedCost(tokens, throughput).value };
}
