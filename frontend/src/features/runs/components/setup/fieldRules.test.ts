import { describe, expect, it } from 'vitest';
import catalogue from '../../__fixtures__/catalogue.json';
import type { Catalogue } from '@/lib/api/types';
import {
  MAX_PATTERN_CHARS,
  newRule,
  nextField,
  parseRules,
  serverRuleErrors,
  startingRules,
} from './fieldRules';

const { comparisons } = catalogue as unknown as Catalogue;
const FIELDS = ['answer', 'total', 'tags'];

describe('field rules', () => {
  it('start with an exact rule per output field', () => {
    expect(startingRules(['answer', 'total']).map((r) => [r.field, r.comparison])).toEqual([
      ['answer', 'exact'],
      ['total', 'exact'],
    ]);
  });

  it('add the next field no rule uses yet', () => {
    expect(nextField([newRule('answer')], FIELDS)).toBe('total');
    expect(nextField(startingRules(FIELDS), FIELDS)).toBe('answer');
  });

  it('send only the keys each comparison reads', () => {
    const parsed = parseRules(
      [
        { ...newRule('answer', 'normalized'), weight: '2', tolerance: '5' },
        { ...newRule('total', 'numeric'), tolerance: '0.01', relative: true },
        { ...newRule('answer', 'regex'), pattern: '[A-Z]+' },
      ],
      comparisons,
      FIELDS,
    );
    expect(parsed.errors).toEqual({});
    expect(parsed.rules).toEqual([
      { field: 'answer', comparison: 'normalized', weight: 2 },
      { field: 'total', comparison: 'numeric', weight: 1, tolerance: 0.01, relative: true },
      { field: 'answer', comparison: 'regex', weight: 1, pattern: '[A-Z]+' },
    ]);
  });

  it('check each rule as the engine does, keyed by index and key', () => {
    const parsed = parseRules(
      [
        { ...newRule('answer'), weight: '0' },
        { ...newRule('total', 'numeric'), tolerance: '-1' },
        { ...newRule('answer', 'regex'), pattern: '(' },
        { ...newRule('answer', 'regex'), pattern: 'a'.repeat(MAX_PATTERN_CHARS + 1) },
        newRule('answer', 'regex'),
        newRule('price'),
      ],
      comparisons,
      FIELDS,
    );
    expect(parsed.errors).toEqual({
      '0.weight': 'must be a number > 0',
      '1.tolerance': 'must be a number ≥ 0',
      '2.pattern': 'not a valid regular expression',
      '3.pattern': `at most ${MAX_PATTERN_CHARS} characters`,
      '4.pattern': 'a pattern is needed',
      '5.field': 'not an output field (answer, total, tags)',
    });
    expect(parseRules([], comparisons, FIELDS).errors).toEqual({ rules: 'add at least one rule' });
  });

  it("read the server's errors at the rules' paths", () => {
    const problems = [
      { path: 'compile_config.reward.params.rules.0.tolerance', message: 'must be >= 0' },
      { path: 'compile_config.reward.params.rules', message: 'at least one rule is needed' },
      { path: 'compile_config.metrics[0].params.rules.1.field', message: 'no field' },
    ];
    expect(serverRuleErrors(problems, 'compile_config.reward.params')).toEqual({
      '0.tolerance': 'must be >= 0',
      rules: 'at least one rule is needed',
    });
    expect(serverRuleErrors(problems, 'compile_config.metrics[0].params')).toEqual({
      '1.field': 'no field',
    });
  });
});
