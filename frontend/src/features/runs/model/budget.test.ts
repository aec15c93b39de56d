import { describe, expect, it } from 'vitest';
import { budgetMeters, capSentences, capsOf } from './budget';

const budget = {
  calls: 120,
  tokens: 5000,
  cost: 0.412,
  max_calls: 200,
  max_tokens: null,
  max_cost: 2,
  exhausted: null,
};

describe('budgetMeters', () => {
  it('has one meter per cap, spent vs cap', () => {
    const meters = budgetMeters(budget);
    expect(meters.map((m) => m.text)).toEqual(['calls 120 / 200', 'cost $0.41 / $2.00']);
    expect(meters[0]!.fraction).toBeCloseTo(0.6);
  });

  it('caps the fill at full when a request crossed the cap', () => {
    expect(budgetMeters({ ...budget, calls: 205 })[0]!.fraction).toBe(1);
  });

  it('has none without a budget', () => {
    expect(budgetMeters(null)).toEqual([]);
  });
});

describe('capsOf', () => {
  it('reads positive numbers, else no cap', () => {
    expect(capsOf({ max_calls: 300, max_tokens: null, max_cost: '' })).toEqual({
      max_calls: 300,
      max_tokens: null,
      max_cost: null,
    });
  });
});

describe('capSentences', () => {
  const caps = { max_calls: 300, max_tokens: 10_000, max_cost: null };

  it('says the run will stop early when the estimate is over a cap', () => {
    expect(capSentences({ calls: 416 }, caps)).toEqual([
      {
        name: 'calls',
        over: true,
        text: 'estimated 416 calls — over your cap of 300: the run will stop early and keep its best program',
      },
    ]);
  });

  it('says within when under, and weighs tokens and cost when estimated', () => {
    const out = capSentences({ calls: 250, tokens: 20_000, cost: 1.5 }, { ...caps, max_cost: 1 });
    expect(out.map((c) => [c.name, c.over])).toEqual([
      ['calls', false],
      ['tokens', true],
      ['cost', true],
    ]);
    expect(out[0]!.text).toBe('estimated 250 calls — within your cap of 300');
    expect(out[2]!.text).toMatch(/^estimated cost \$1\.50 — over your cap of \$1\.00/);
  });

  it('says nothing without caps', () => {
    expect(
      capSentences({ calls: 416 }, { max_calls: null, max_tokens: null, max_cost: null }),
    ).toEqual([]);
  });
});

describe('capSentences with a cost below a cent', () => {
  it('shows the figure rather than $0.00', () => {
    const [cost] = capSentences(
      { calls: 10, cost: 0.0031 },
      { max_calls: null, max_tokens: null, max_cost: 0.5 },
    );
    expect(cost!.text).toBe('estimated cost $0.0031 — within your cap of $0.50');
  });
});
