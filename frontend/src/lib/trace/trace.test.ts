import { describe, expect, it } from 'vitest';
import { traceSteps } from './trace';

const step = (fields: Record<string, unknown>) => ({
  inputs: null,
  outputs: null,
  error: null,
  parent: null,
  skipped: false,
  taken: null,
  ...fields,
});

// What optimizer_core's Branch leaves in a row's trace (tests/modules/test_branch.py).
const BRANCH_TRACE = [
  step({
    module: 'router',
    inputs: { query: 'What is 2+3?' },
    outputs: [{ thinking: 't', choice: 'math', answer: '5' }, null],
    taken: ['math'],
  }),
  step({
    module: 'router_decision',
    parent: 'router',
    inputs: { query: 'What is 2+3?', question: 'Is this an arithmetic question?' },
    outputs: { thinking: 't', choice: 'math' },
  }),
  step({
    module: 'mathematician',
    parent: 'router',
    inputs: { query: 'What is 2+3?', thinking: 't', choice: 'math' },
    outputs: { answer: '5' },
  }),
  step({ module: 'generalist', parent: 'router', skipped: true }),
  step({ module: 'or', inputs: [{ answer: '5' }, null], outputs: { answer: '5' } }),
];

describe('traceSteps', () => {
  it('walks a Branch: the label taken, its modules under it, the branch not taken skipped', () => {
    const steps = traceSteps(BRANCH_TRACE);

    expect(steps.map((s) => [s.module, s.depth, s.status])).toEqual([
      ['router', 0, 'ran'],
      ['router_decision', 1, 'ran'],
      ['mathematician', 1, 'ran'],
      ['generalist', 1, 'skipped'],
      ['or', 0, 'ran'],
    ]);
    expect(steps[0]!.took).toEqual(['math']);
    expect(steps[1]!.took).toEqual(['math']); // the decision's choice
    expect(steps[2]!.took).toBeNull(); // a Generator fed the choice took nothing
    expect(steps[3]!.said).toBeNull();
    expect(steps[2]!.got).toContain('"query": "What is 2+3?"');
    expect(JSON.parse(steps[2]!.said!)).toEqual({ answer: '5' });
  });

  it('marks a failed module with its error, and what came after it as skipped', () => {
    const steps = traceSteps([
      step({ module: 'drafter', inputs: { query: 'q' }, error: 'InvalidResponseError: not JSON' }),
      step({ module: 'finisher', skipped: true }),
    ]);

    expect(steps.map((s) => s.status)).toEqual(['failed', 'skipped']);
    expect(steps[0]!.error).toBe('InvalidResponseError: not JSON');
    expect(steps[0]!.said).toBeNull();
  });

  it("reads a MultiDecision's choices", () => {
    const [decision] = traceSteps([
      step({
        module: 'tagger',
        inputs: { query: 'q', question: 'Which?' },
        outputs: { thinking: 't', choices: ['a', 'b'] },
      }),
    ]);
    expect(decision!.took).toEqual(['a', 'b']);
  });

  it('gives nothing for a row stored without a trace, and skips entries that are not steps', () => {
    expect(traceSteps(undefined)).toEqual([]);
    expect(traceSteps([null, { inputs: {} }, step({ module: 'g' })]).map((s) => s.module)).toEqual([
      'g',
    ]);
  });
});
