/**
 * How many LM calls a run will make, before it starts, following
 * optimizer_core/programs/trainer.py and studio/runs/training.py:
 *
 * - before / after: `evaluations` passes over the test split, each row one prediction;
 * - training: every training row is predicted once per epoch;
 * - candidates: after each batch the optimizer proposes candidates (RandomFewShot: one per
 *   trainable variable with examples; OMEGA: one, plus its own mutation / crossover call)
 *   and scores each on a minibatch of fit's `minibatch_size` rows (default 4,
 *   MINIBATCH_SIZE in trainer.py; the studio does not pass it), drawn from the validation
 *   rows, or from the training rows outside the batch when there are none; never
 *   `batch_size`;
 * - validation: one pass over the validation rows per epoch, and one more before the first
 *   epoch (the starting values are validated once, to compete with the epochs).
 *
 * A prediction costs one call per Generator / ChainOfThought module in the program.
 * It is an upper bound on what the engine asks for: racing stops a proposal that cannot
 * win after half its minibatch, and a (candidate, row) result already known in the fit is
 * not asked again (an epoch that kept its values validates for free). Retries and failed
 * parses add calls to it.
 */

/** fit's default `minibatch_size` (optimizer_core/programs/trainer.py, MINIBATCH_SIZE). */
export const MINIBATCH_SIZE = 4;

export type EstimateInput = {
  rows: number;
  testFraction: number;
  lmModules: number;
  trainableVariables: number;
  /** The optimizer's catalogue name; OMEGA adds its own LM call per step. */
  optimizer: string;
  epochs: number;
  batchSize: number;
  validationSplit: number;
  evaluations: number;
  /** Rows each proposal is scored on; fit's default unless given. */
  minibatchSize?: number;
};

export type Estimate = {
  trainRows: number;
  validationRows: number;
  testRows: number;
  steps: number;
  /** Rows each proposal is scored on (at most). */
  minibatch: number;
  /** Passes over the validation rows: one per epoch and the starting values' (0 without). */
  validationPasses: number;
  evaluation: number;
  training: number;
  candidates: number;
  /** The optimizer's own LM calls among the candidates' (OMEGA: one mutation or crossover a
   * step, each a ChainOfThought writing a whole variable, so slower than a prediction). */
  optimizerCalls: number;
  validation: number;
  total: number;
};

export function estimateCalls(input: EstimateInput): Estimate {
  const testRows = Math.min(input.rows, Math.max(0, Math.round(input.rows * input.testFraction)));
  const fitRows = input.rows - testRows;
  const splitAt =
    input.validationSplit > 0 ? Math.floor(fitRows * (1 - input.validationSplit)) : fitRows;
  const trainRows = Math.max(0, splitAt);
  const validationRows = fitRows - trainRows;
  const steps = trainRows > 0 ? Math.ceil(trainRows / input.batchSize) : 0;
  const perPrediction = Math.max(1, input.lmModules);

  const evaluation = 2 * input.evaluations * testRows * perPrediction;
  const training = input.epochs * trainRows * perPrediction;
  const proposalsPerStep = input.optimizer === 'OMEGA' ? 1 : input.trainableVariables;
  const pool =
    validationRows > 0 ? validationRows : Math.max(trainRows - input.batchSize, 0) || trainRows;
  const minibatch = Math.min(input.minibatchSize ?? MINIBATCH_SIZE, pool);
  const proposalCalls = input.optimizer === 'OMEGA' ? 1 : 0;
  const candidates =
    input.epochs * steps * proposalsPerStep * (minibatch * perPrediction + proposalCalls);
  // Each epoch's pass, and the starting values' pass before the first epoch.
  const validationPasses = validationRows > 0 ? input.epochs + 1 : 0;
  const validation = validationPasses * validationRows * perPrediction;
  return {
    trainRows,
    validationRows,
    testRows,
    steps,
    minibatch,
    validationPasses,
    evaluation,
    training,
    candidates,
    optimizerCalls: input.epochs * steps * proposalsPerStep * proposalCalls,
    validation,
    total: evaluation + training + candidates + validation,
  };
}
