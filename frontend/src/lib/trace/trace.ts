/**
 * A test row's trace (a stored row's `trace`: optimizer_core's `TraceStep.as_json()` per
 * module call, in the order the calls started) as steps to show: the module, what it got
 * and what it said, the label a Branch or a Decision took, and whether it ran at all.
 *
 * A Branch's step comes before its decision's and its branch modules' (their `parent`
 * names it), so a step is nested one level under its parent; a branch not taken has a
 * `skipped` step, with no output.
 */

export type TraceStepView = {
  module: string;
  /** 0 for a module of the graph; one more per module holding it (a Branch, a SelfCritique). */
  depth: number;
  /** `ran`; `skipped`: it did not run (a branch not taken, a module after a failure);
   * `failed`: it ran and gave nothing (its `error` says why). */
  status: 'ran' | 'skipped' | 'failed';
  /** What it got and what it said, as indented JSON (null when there is none). */
  got: string | null;
  said: string | null;
  /** The labels a Branch took, or the one (or ones) a Decision chose; null for other modules. */
  took: string[] | null;
  error: string | null;
};

const record = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

const json = (v: unknown): string | null =>
  v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v, null, 2);

const strings = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : null;

/**
 * The labels a step took: a Branch's `taken`; else a Decision's choice, read off its output
 * (`choice`, or a MultiDecision's `choices`) when its input carries the question the
 * Decision adds.
 */
function tookOf(step: Record<string, unknown>): string[] | null {
  const taken = strings(step.taken);
  if (taken) return taken;
  const inputs = record(step.inputs);
  const outputs = record(step.outputs);
  if (!inputs || !outputs || typeof inputs.question !== 'string') return null;
  if (typeof outputs.choice === 'string') return [outputs.choice];
  return strings(outputs.choices);
}

/** The trace's steps, in order; entries that are not steps (no module name) are left out. */
export function traceSteps(trace: unknown): TraceStepView[] {
  if (!Array.isArray(trace)) return [];
  const depths = new Map<string, number>();
  const steps: TraceStepView[] = [];
  for (const entry of trace) {
    const step = record(entry);
    if (!step || typeof step.module !== 'string') continue;
    const parent = typeof step.parent === 'string' ? step.parent : null;
    const depth = parent === null ? 0 : (depths.get(parent) ?? 0) + 1;
    depths.set(step.module, depth);
    const error = typeof step.error === 'string' && step.error ? step.error : null;
    const skipped = step.skipped === true;
    steps.push({
      module: step.module,
      depth,
      status: skipped ? 'skipped' : error !== null ? 'failed' : 'ran',
      got: json(step.inputs),
      said: json(step.outputs),
      took: skipped ? null : tookOf(step),
      error,
    });
  }
  return steps;
}
