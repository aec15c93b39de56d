import type { CatalogueComparison } from '@/lib/api/types';
import { FormField } from '@/lib/components/FormField';
import { newRule, nextField, optionsOf, type RuleForm } from './fieldRules';

/**
 * The field rules of a `field_rules` reward or metric: a row per rule (output field,
 * comparison, tolerance or pattern where the comparison reads one, weight, remove), and
 * "Add rule". Errors (the form's and the server's, keyed `<index>.<key>`) show beside
 * their input.
 */
export function FieldRulesBuilder({
  idPrefix,
  rules,
  comparisons,
  outputFields,
  errors,
  onChange,
}: {
  idPrefix: string;
  rules: RuleForm[];
  comparisons: CatalogueComparison[];
  /** The program's output fields, what a rule compares. */
  outputFields: string[];
  errors: Record<string, string>;
  onChange: (rules: RuleForm[]) => void;
}) {
  const set = (index: number, patch: Partial<RuleForm>) =>
    onChange(rules.map((rule, i) => (i === index ? { ...rule, ...patch } : rule)));
  return (
    <fieldset className="stack" aria-label="Field rules" style={{ border: 0, padding: 0 }}>
      <legend>Field rules</legend>
      {rules.map((rule, index) => {
        const id = `${idPrefix}-rule-${index}`;
        const options = optionsOf(comparisons, rule.comparison);
        const comparison = comparisons.find((c) => c.name === rule.comparison);
        return (
          <div
            key={index}
            role="group"
            aria-label={`Rule ${index + 1}`}
            style={{ display: 'flex', gap: 6, flexWrap: 'wrap', alignItems: 'end' }}
          >
            <FormField label="Field" id={`${id}-field`} error={errors[`${index}.field`]}>
              {(control) => (
                <select
                  {...control}
                  className="select"
                  value={rule.field}
                  onChange={(e) => set(index, { field: e.target.value })}
                >
                  {!outputFields.includes(rule.field) && (
                    <option value={rule.field}>{rule.field || '—'}</option>
                  )}
                  {outputFields.map((f) => (
                    <option key={f}>{f}</option>
                  ))}
                </select>
              )}
            </FormField>
            <FormField
              label="Comparison"
              id={`${id}-comparison`}
              hint={comparison?.description}
              error={errors[`${index}.comparison`]}
            >
              {(control) => (
                <select
                  {...control}
                  className="select"
                  value={rule.comparison}
                  onChange={(e) => set(index, { comparison: e.target.value })}
                >
                  {comparisons.map((c) => (
                    <option key={c.name} value={c.name}>
                      {c.label}
                    </option>
                  ))}
                </select>
              )}
            </FormField>
            {options.includes('tolerance') && (
              <>
                <FormField
                  label="Tolerance"
                  id={`${id}-tolerance`}
                  error={errors[`${index}.tolerance`]}
                >
                  {(control) => (
                    <input
                      {...control}
                      className="input"
                      inputMode="decimal"
                      value={rule.tolerance}
                      onChange={(e) => set(index, { tolerance: e.target.value })}
                    />
                  )}
                </FormField>
                <FormField
                  label="Tolerance is"
                  id={`${id}-relative`}
                  error={errors[`${index}.relative`]}
                >
                  {(control) => (
                    <select
                      {...control}
                      className="select"
                      value={rule.relative ? 'relative' : 'absolute'}
                      onChange={(e) => set(index, { relative: e.target.value === 'relative' })}
                    >
                      <option value="absolute">absolute</option>
                      <option value="relative">relative (0.01 = 1%)</option>
                    </select>
                  )}
                </FormField>
              </>
            )}
            {options.includes('pattern') && (
              <FormField label="Pattern" id={`${id}-pattern`} error={errors[`${index}.pattern`]}>
                {(control) => (
                  <input
                    {...control}
                    className="input mono"
                    placeholder="[A-Z]{3}-\d{4}"
                    value={rule.pattern}
                    onChange={(e) => set(index, { pattern: e.target.value })}
                  />
                )}
              </FormField>
            )}
            <FormField label="Weight" id={`${id}-weight`} error={errors[`${index}.weight`]}>
              {(control) => (
                <input
                  {...control}
                  className="input"
                  inputMode="decimal"
                  style={{ width: 70 }}
                  value={rule.weight}
                  onChange={(e) => set(index, { weight: e.target.value })}
                />
              )}
            </FormField>
            <button
              type="button"
              className="btn"
              aria-label={`Remove rule ${index + 1}`}
              onClick={() => onChange(rules.filter((_, i) => i !== index))}
            >
              Remove
            </button>
          </div>
        );
      })}
      {errors.rules && (
        <div className="error" role="alert">
          {errors.rules}
        </div>
      )}
      <div>
        <button
          type="button"
          className="btn"
          onClick={() => onChange([...rules, newRule(nextField(rules, outputFields))])}
        >
          Add rule
        </button>
      </div>
    </fieldset>
  );
}
