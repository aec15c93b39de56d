/**
 * The field rules builder's model (optimizer_core/rewards/field_rules.py): a row per rule
 * as typed, checked as the engine checks it, and written as the `rules` param. Errors are
 * keyed `<index>.<key>` (`0.tolerance`), as the server's paths end
 * (`compile_config.reward.params.rules.0.tolerance`), so both show beside the same input.
 */
import type { FieldProblem } from '@/lib/api/errors';
import type { CatalogueComparison } from '@/lib/api/types';

/** One rule as typed. */
export type RuleForm = {
  field: string;
  comparison: string;
  weight: string;
  tolerance: string;
  relative: boolean;
  pattern: string;
};

/** The longest pattern the engine takes (field_rules.MAX_PATTERN_CHARS). */
export const MAX_PATTERN_CHARS = 500;

export function newRule(field: string, comparison = 'exact'): RuleForm {
  return { field, comparison, weight: '1', tolerance: '0', relative: false, pattern: '' };
}

/** A rule per output field, each compared exactly: where the builder starts. */
export function startingRules(outputFields: string[]): RuleForm[] {
  return outputFields.map((field) => newRule(field));
}

/** The rule keys a comparison reads besides field and weight. */
export function optionsOf(comparisons: CatalogueComparison[], name: string): string[] {
  return comparisons.find((c) => c.name === name)?.options ?? [];
}

/** The first output field no rule uses yet (what "Add rule" starts with), else the first. */
export function nextField(rules: RuleForm[], outputFields: string[]): string {
  const used = new Set(rules.map((r) => r.field));
  return outputFields.find((f) => !used.has(f)) ?? outputFields[0] ?? '';
}

export type ParsedRules = { rules: Record<string, unknown>[]; errors: Record<string, string> };

/** The rules as the `rules` param, and the errors by `<index>.<key>` (`rules`: the list). */
export function parseRules(
  rules: RuleForm[],
  comparisons: CatalogueComparison[],
  outputFields: string[],
): ParsedRules {
  const errors: Record<string, string> = {};
  if (rules.length === 0) errors.rules = 'add at least one rule';
  const parsed = rules.map((rule, index) => {
    const at = (key: string, message: string) => (errors[`${index}.${key}`] = message);
    if (!rule.field) at('field', 'choose a field');
    else if (outputFields.length && !outputFields.includes(rule.field))
      at('field', `not an output field (${outputFields.join(', ')})`);
    const weight = Number(rule.weight);
    if (rule.weight.trim() === '' || !Number.isFinite(weight) || weight <= 0)
      at('weight', 'must be a number > 0');
    const out: Record<string, unknown> = {
      field: rule.field,
      comparison: rule.comparison,
      weight,
    };
    const options = optionsOf(comparisons, rule.comparison);
    if (options.includes('tolerance')) {
      const tolerance = Number(rule.tolerance || '0');
      if (!Number.isFinite(tolerance) || tolerance < 0) at('tolerance', 'must be a number ≥ 0');
      out.tolerance = tolerance;
      out.relative = rule.relative;
    }
    if (options.includes('pattern')) {
      if (!rule.pattern) at('pattern', 'a pattern is needed');
      else if (rule.pattern.length > MAX_PATTERN_CHARS)
        at('pattern', `at most ${MAX_PATTERN_CHARS} characters`);
      else {
        try {
          new RegExp(rule.pattern);
        } catch {
          // The engine's dialect (Python's) is the judge; most patterns read the same here.
          at('pattern', 'not a valid regular expression');
        }
      }
      out.pattern = rule.pattern;
    }
    return out;
  });
  return { rules: parsed, errors };
}

/**
 * The server's problems with the rules under `prefix` (`compile_config.reward.params`),
 * keyed as `parseRules` keys its own.
 */
export function serverRuleErrors(problems: FieldProblem[], prefix: string): Record<string, string> {
  const errors: Record<string, string> = {};
  const start = `${prefix}.rules`;
  for (const p of problems) {
    if (p.path === start) errors.rules = p.message;
    else if (p.path.startsWith(`${start}.`)) errors[p.path.slice(start.length + 1)] = p.message;
  }
  return errors;
}
