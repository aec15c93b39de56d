import { describe, expect, it } from 'vitest';
import { detectableSentence, minimumDetectable, rowsNeeded } from './detectable';

describe('detectable gains', () => {
  it('matches optimizer_core.stats (its docstring examples)', () => {
    // minimum_detectable_difference(40, 0.5) == 0.2215; rows_needed(0.05, 0.5) == 785
    expect(minimumDetectable(40)).toBeCloseTo(0.2215, 4);
    expect(rowsNeeded(0.05, 0.5)).toBe(785);
    expect(rowsNeeded(-0.05)).toBe(785);
    expect(rowsNeeded(10)).toBe(2);
  });

  it('says how small a gain a small test split can see, and the rows a 0.05 gain needs', () => {
    expect(detectableSentence(20)).toBe(
      'With 20 test rows, only a gain of about 0.31 would be detectable; about 785 rows are needed to see a gain of 0.05.',
    );
  });

  it('says when the test split is large enough', () => {
    expect(detectableSentence(1000)).toBe(
      'With 1,000 test rows, a gain of 0.05 is detectable (down to about 0.044).',
    );
  });

  it('says that one row or none tells nothing', () => {
    expect(detectableSentence(0)).toMatch(/^With 0 test rows, no gain can be told from noise/);
    expect(detectableSentence(1)).toMatch(/^With 1 test row, no gain/);
  });
});
