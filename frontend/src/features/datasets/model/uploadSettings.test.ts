import { describe, expect, it } from 'vitest';
import { splitSeedError, testFractionError } from './uploadSettings';

describe('upload split settings', () => {
  it('takes a test fraction from 0 to 0.99', () => {
    expect(testFractionError('0.2')).toBeNull();
    expect(testFractionError('0')).toBeNull();
    expect(testFractionError('0.99')).toBeNull();
    expect(testFractionError('1')).toBe('From 0 (no test split) to 0.99.');
    expect(testFractionError('-0.1')).toBe('From 0 (no test split) to 0.99.');
    expect(testFractionError('')).toBe('A number from 0 to 0.99.');
  });

  it('takes a whole seed', () => {
    expect(splitSeedError('7')).toBeNull();
    expect(splitSeedError('-3')).toBeNull();
    expect(splitSeedError('1.5')).toBe('A whole number.');
    expect(splitSeedError('')).toBe('A whole number.');
  });
});
