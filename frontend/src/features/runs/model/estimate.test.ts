import { describe, expect, it } from 'vitest';
import { estimateCalls, MINIBATCH_SIZE } from './estimate';

const base = {
  rows: 40,
  testFraction: 0.2,
  lmModules: 1,
  trainableVariables: 1,
  optimizer: 'RandomFewShot' as const,
  epochs: 2,
  batchSize: 8,
  validationSplit: 0,
  evaluations: 1,
};

describe('estimateCalls', () => {
  it('adds evaluations, training rows, candidate minibatches and validation passes', () => {
    // 8 test rows, 32 training rows in 4 batches; each step scores one candidate on fit's
    // minibatch of 4 rows (not the batch's 8).
    const estimate = estimateCalls(base);
    expect(MINIBATCH_SIZE).toBe(4);
    expect(estimate).toMatchObject({ testRows: 8, trainRows: 32, validationRows: 0, steps: 4 });
    expect(estimate.minibatch).toBe(4);
    expect(estimate.evaluation).toBe(2 * 8);
    expect(estimate.training).toBe(2 * 32);
    expect(estimate.candidates).toBe(2 * 4 * 4);
    expect(estimate.validation).toBe(0);
    expect(estimate.validationPasses).toBe(0);
    expect(estimate.total).toBe(16 + 64 + 32);
  });

  it('scores candidates on validation rows and validates the starting values once more', () => {
    // 32 fit rows at 0.25: 24 training (3 batches), 8 validation rows; 2 epochs + 1 start pass.
    const estimate = estimateCalls({ ...base, validationSplit: 0.25, batchSize: 8 });
    expect(estimate).toMatchObject({ trainRows: 24, validationRows: 8, steps: 3 });
    expect(estimate.validationPasses).toBe(3);
    expect(estimate.validation).toBe(3 * 8);
    expect(estimate.candidates).toBe(2 * 3 * 4);
  });

  it('keeps the minibatch within the rows there are, whatever the batch size', () => {
    // 3 validation rows: a minibatch of 3; a larger batch size does not change it.
    const small = estimateCalls({ ...base, rows: 20, testFraction: 0.2, validationSplit: 0.2 });
    expect(small).toMatchObject({ validationRows: 4, minibatch: 4 });
    const tiny = estimateCalls({ ...base, rows: 10, testFraction: 0.2, validationSplit: 0.3 });
    expect(tiny).toMatchObject({ validationRows: 3, minibatch: 3 });
    const big = estimateCalls({ ...base, batchSize: 32, minibatchSize: 2 });
    expect(big.minibatch).toBe(2);
    expect(big.candidates).toBe(2 * 1 * 2);
  });

  it('counts OMEGA as one proposal per step plus its own call, times the modules', () => {
    const estimate = estimateCalls({
      ...base,
      optimizer: 'OMEGA',
      lmModules: 2,
      trainableVariables: 2,
    });
    expect(estimate.candidates).toBe(2 * 4 * (4 * 2 + 1));
    expect(estimate.optimizerCalls).toBe(2 * 4);
    expect(estimateCalls(base).optimizerCalls).toBe(0);
    expect(estimate.training).toBe(2 * 32 * 2);
  });
});
