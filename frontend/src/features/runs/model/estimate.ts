/**
 * How many LM calls a run will make, before it starts, following
 * optimizer_core/programs/trainer.py and studio/runs/training.py:
 *
 * - before / after: `evaluations` passes over the test split, each row one prediction;
 * - training: every training row is predicted once per epoch;
 * - candidates: after each batch the optimizer proposes candidates (RandomFewShot: one per
 *   trainable variable with examples; OMEGA: one, plus its own mutation / crossover call)
 *   and scores each on a minibatch of `batch_size` rows (from the validation rows, or the
 *   training rows outside the batch);
 * - validation: one pass over the validation rows per epoch.
 *
 * A prediction costs one call per Generator / ChainOfThought module in the program.
 * Retries and failed parses add calls; cached calls remove some: it is an estimate.
 */
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
};

export type Estimate = {
  trainRows: number;
  validationRows: number;
  testRows: number;
  steps: number;
  evaluation: number;
  training: number;
  candidates: number;
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
  const minibatch = Math.min(input.batchSize, pool);
  const proposalCalls = input.optimizer === 'OMEGA' ? 1 : 0;
  const candidates =
    input.epochs * steps * proposalsPerStep * (minibatch * perPrediction + proposalCalls);
  const validation = input.epochs * validationRows * perPrediction;
  return {
    trainRows,
    validationRows,
    testRows,
    steps,
    evaluation,
    training,
    candidates,
    validation,
    total: evaluation + training + candidates + validation,
  };
}
