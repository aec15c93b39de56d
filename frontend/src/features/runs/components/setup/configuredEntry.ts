/**
 * A reward's or metric's entry with what the builders add to its settings: the field
 * rules (`params.rules`) and the judge's `provider` / `program`, checked, as
 * `compile_config` takes it.
 */
import type { CatalogueComparison, CatalogueEntry } from '@/lib/api/types';
import type { Chosen, EntryForm, ParamSpec, Parsed } from '../../model/runConfig';
import { parseRules, startingRules } from './fieldRules';
import { JUDGE_PARAMS, judgeError, judgeKeys, NO_JUDGE, takesProvider } from './judge';

/** Whether the entry holds field rules (a setting of type `field_rules`). */
export function rulesParam(entry: CatalogueEntry | undefined): string | null {
  return entry?.params.find((p) => p.type === 'field_rules')?.name ?? null;
}

/** The builders' starting state for a newly chosen entry: a rule per output field. */
export function builderDefaults(
  entry: CatalogueEntry,
  outputFields: string[],
): Pick<EntryForm, 'rules' | 'judge'> {
  return {
    ...(rulesParam(entry) ? { rules: startingRules(outputFields) } : {}),
    ...(takesProvider(entry) ? { judge: NO_JUDGE } : {}),
  };
}

export type Configured = {
  chosen: Chosen;
  /** The rules' errors by `<index>.<key>`. */
  ruleErrors: Record<string, string>;
  judgeError: string | null;
  valid: boolean;
};

/** The entry as sent, from its parsed settings and its builders' state. */
export function configuredEntry(
  entry: CatalogueEntry | undefined,
  form: EntryForm,
  parsed: Parsed,
  comparisons: CatalogueComparison[],
  outputFields: string[],
): Configured {
  const params = { ...parsed.values };
  let ruleErrors: Record<string, string> = {};
  const key = rulesParam(entry);
  if (key) {
    const rules = parseRules(form.rules ?? [], comparisons, outputFields);
    params[key] = rules.rules;
    ruleErrors = rules.errors;
  }
  const judge = judgeError(entry, form.judge);
  return {
    chosen: { name: form.name, params, ...judgeKeys(entry, form.judge) },
    ruleErrors,
    judgeError: judge,
    valid:
      Object.keys(parsed.errors).length === 0 &&
      Object.keys(ruleErrors).length === 0 &&
      judge === null,
  };
}

/** The entry's settings the generic fields show (the builders show the rest). */
export function plainParams(entry: CatalogueEntry | undefined, specs: ParamSpec[]): ParamSpec[] {
  const judge = takesProvider(entry);
  return specs.filter((p) => p.type !== 'field_rules' && !(judge && JUDGE_PARAMS.includes(p.name)));
}
