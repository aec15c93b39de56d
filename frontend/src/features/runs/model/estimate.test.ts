import { describe, expect, it } from 'vitest';
import { estimateCalls } from './estimate';

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
    // 8 test rows, 32 training rows in 4 batches; each step scores one candidate on 8 rows.
    const estimate = estimateCalls(base);
    expect(estimate).toMatchObject({ testRows: 8, trainRows: 32, validationRows: 0, steps: 4 });
    expect(estimate.evaluation).toBe(2 * 8);
    expect(estimate.training).toBe(2 * 32);
    expect(estimate.candidates).toBe(2 * 4 * 8);
    expect(estimate.total).toBe(16 + 64 + 64);
  });

  it('scores candidates on the validation rows when there are some', () => {
    // 32 fit rows at 0.25: 24 training (3 batches), 8 validation rows.
    const estimate = estimateCalls({ ...base, validationSplit: 0.25, batchSize: 8 });
    expect(estimate).toMatchObject({ trainRows: 24, validationRows: 8, steps: 3 });
    expect(estimate.validation).toBe(2 * 8);
    expect(estimate.candidates).toBe(2 * 3 * 8);
  });

  it('counts OMEGA as one proposal per step plus its own call, times the modules', () => {
    const estimate = estimateCalls({
      ...base,
      optimizer: 'OMEGA',
      lmModules: 2,
      trainableVariables: 2,
    });
    expect(estimate.candidates).toBe(2 * 4 * (8 * 2 + 1));
    expect(estimate.training).toBe(2 * 32 * 2);
  });
});
