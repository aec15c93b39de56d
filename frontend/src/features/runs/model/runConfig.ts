/**
 * The run setup form, built from the catalogue (GET /api/catalogue/): each reward, metric
 * and optimizer declares its settings (type, default, range or choices), and so do the fit
 * settings; the form starts from the defaults, checks what is typed against the same
 * ranges the engine and studio/runs/config.py enforce, and writes the `compile_config` /
 * `fit_config` the API takes. Nothing here knows a reward or an optimizer by name.
 */
import type { CatalogueEntry, CatalogueParam } from '@/lib/api/types';
import type { RuleForm } from '../components/setup/fieldRules';
import type { JudgeForm } from '../components/setup/judge';

export type ParamSpec = CatalogueParam;

/** Form values as typed: text for numbers and strings, booleans, lists of picked fields. */
export type FormValue = string | boolean | string[];
export type FormValues = Record<string, FormValue>;

function listOf(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

export function defaults(specs: ParamSpec[]): FormValues {
  return Object.fromEntries(
    specs.map((s): [string, FormValue] => {
      if (s.type === 'bool') return [s.name, Boolean(s.default)];
      if (s.type === 'fields') return [s.name, listOf(s.default)];
      if (s.type === 'str_list') return [s.name, listOf(s.default).join(', ')];
      return [s.name, s.default === null || s.default === undefined ? '' : String(s.default)];
    }),
  );
}

/**
 * A chosen catalogue entry and its settings as typed; a `field_rules` setting's rows, and
 * a judge's provider and program, beside them (setup/FieldRulesBuilder, setup/JudgeFields).
 */
export type EntryForm = { name: string; values: FormValues; rules?: RuleForm[]; judge?: JudgeForm };

export function entryDefaults(entry: CatalogueEntry): EntryForm {
  return { name: entry.name, values: defaults(entry.params) };
}

export function findEntry(entries: CatalogueEntry[], name: string): CatalogueEntry | undefined {
  return entries.find((e) => e.name === name);
}

/** Run setup starts smaller than the fit defaults: a first run should be quick. */
const QUICK_START: FormValues = { epochs: '2', batch_size: '8', evaluations: '1' };

export function startingFitForm(fit: ParamSpec[]): FormValues {
  const start = defaults(fit);
  for (const [key, value] of Object.entries(QUICK_START)) if (key in start) start[key] = value;
  return start;
}

export type Parsed = { values: Record<string, unknown>; errors: Record<string, string> };

function bounds(spec: ParamSpec, value: number): string | null {
  if (spec.minimum !== null && spec.minimum !== undefined) {
    const low = spec.exclusive_minimum ? value <= spec.minimum : value < spec.minimum;
    if (low) return `must be ${spec.exclusive_minimum ? '>' : '≥'} ${spec.minimum}`;
  }
  if (spec.maximum !== null && spec.maximum !== undefined) {
    const high = spec.exclusive_maximum ? value >= spec.maximum : value > spec.maximum;
    if (high) return `must be ${spec.exclusive_maximum ? '<' : '≤'} ${spec.maximum}`;
  }
  return null;
}

/**
 * Parse and check the form values against their declarations. A value left empty is none:
 * left out where that is the default, sent as null where the setting allows none but
 * defaults to a value, and an error where a value must be given.
 */
export function parseParams(specs: ParamSpec[], form: FormValues): Parsed {
  const values: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const spec of specs) {
    const raw = form[spec.name];
    if (spec.type === 'field_rules') continue; // the rules builder's (setup/fieldRules.ts)
    if (spec.type === 'bool') {
      values[spec.name] = Boolean(raw);
      continue;
    }
    if (spec.type === 'fields') {
      const picked = listOf(raw);
      if (picked.length) values[spec.name] = picked;
      else if (spec.required) errors[spec.name] = 'pick at least one field';
      continue;
    }
    const text = String(raw ?? '').trim();
    if (text === '') {
      if (spec.required || (!spec.nullable && spec.type !== 'str')) errors[spec.name] = 'required';
      // Emptied, it reads "none" (the placeholder says so): sent when the default is a value.
      else if (
        raw !== undefined &&
        spec.nullable &&
        spec.default !== null &&
        spec.default !== undefined
      )
        values[spec.name] = null;
      continue;
    }
    if (spec.type === 'str_list') {
      values[spec.name] = text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      continue;
    }
    if (spec.type === 'str') {
      if (spec.choices && !spec.choices.includes(text))
        errors[spec.name] = `choose one of ${spec.choices.join(', ')}`;
      else values[spec.name] = text;
      continue;
    }
    const value = Number(text);
    if (!Number.isFinite(value)) {
      errors[spec.name] = 'not a number';
      continue;
    }
    if (spec.type === 'int' && !Number.isInteger(value)) {
      errors[spec.name] = 'must be a whole number';
      continue;
    }
    const outside = bounds(spec, value);
    if (outside) {
      errors[spec.name] = outside;
      continue;
    }
    values[spec.name] = value;
  }
  if (
    typeof values.nb_min_examples === 'number' &&
    typeof values.nb_max_examples === 'number' &&
    values.nb_max_examples < values.nb_min_examples
  )
    errors.nb_max_examples = 'must be ≥ min examples';
  return { values, errors };
}

/**
 * The output-field masks are picked once, on the reward, and apply to the metrics too:
 * a metric's `fields` settings that the reward also has are not shown for the metric.
 */
export function sharedFields(metric: CatalogueEntry, reward: CatalogueEntry | undefined) {
  const rewardFields = new Set(
    (reward?.params ?? []).filter((p) => p.type === 'fields').map((p) => p.name),
  );
  return metric.params.filter((p) => p.type === 'fields' && rewardFields.has(p.name));
}

/** The settings a metric shows of its own (all but the shared masks). */
export function ownParams(metric: CatalogueEntry, reward: CatalogueEntry | undefined) {
  const shared = new Set(sharedFields(metric, reward).map((p) => p.name));
  return metric.params.filter((p) => !shared.has(p.name));
}

/** A metric's values: its own as typed, the shared masks as picked on the reward. */
export function metricValues(
  metric: CatalogueEntry,
  own: FormValues,
  reward: CatalogueEntry | undefined,
  rewardValues: FormValues,
): FormValues {
  const values = { ...own };
  for (const p of sharedFields(metric, reward)) values[p.name] = rewardValues[p.name] ?? [];
  return values;
}

/** An entry as `compile_config` holds it; a judge's `provider` / `program` ids beside. */
export type Chosen = {
  name: string;
  params: Record<string, unknown>;
  provider?: number;
  program?: number;
};

/** The `compile_config` of studio/runs/config.py. */
export function compileConfig(
  reward: Chosen,
  metrics: Chosen[],
  optimizer: Chosen,
): Record<string, unknown> {
  return { reward, metrics, optimizer };
}

/** Split a server error path (`compile_config.optimizer.params`) into the form section it names. */
export function sectionOf(path: string): 'reward' | 'metrics' | 'optimizer' | 'fit' | 'run' {
  if (path.startsWith('compile_config.reward')) return 'reward';
  if (path.startsWith('compile_config.metrics')) return 'metrics';
  if (path.startsWith('compile_config.optimizer')) return 'optimizer';
  if (path.startsWith('fit_config')) return 'fit';
  return 'run';
}
