/**
 * A Generator's sampling settings: `temperature`, `max_tokens`, `top_p`, `top_k` and
 * `reasoning_effort`, checked as optimizer_core's `check_sampling`
 * (language_models/language_model.py) checks them. Null (or absent) is "not set": the
 * engine then sends nothing and the provider's default applies.
 */
import { REASONING_EFFORTS, type GeneratorConfig } from './document';

export type SamplingKey = 'temperature' | 'max_tokens' | 'top_p' | 'top_k' | 'reasoning_effort';
export type NumericSamplingKey = Exclude<SamplingKey, 'reasoning_effort'>;

export const SAMPLING_KEYS: readonly SamplingKey[] = [
  'temperature',
  'max_tokens',
  'top_p',
  'top_k',
  'reasoning_effort',
];

export const SAMPLING_LABELS: Record<SamplingKey, string> = {
  temperature: 'Temperature',
  max_tokens: 'Max tokens',
  top_p: 'Top p',
  top_k: 'Top k',
  reasoning_effort: 'Reasoning effort',
};

const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);
const isWhole = (value: unknown): value is number => isNumber(value) && Number.isInteger(value);

/**
 * What is wrong with `value` for the setting `key`, as the end of a sentence
 * ("must be ..."), or null when the engine takes it. Null and undefined are "not set".
 */
export function samplingProblem(key: SamplingKey, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  switch (key) {
    case 'temperature':
      return isNumber(value) && value >= 0 ? null : 'must be a number >= 0';
    case 'max_tokens':
    case 'top_k':
      return isWhole(value) && value >= 1 ? null : 'must be a whole number >= 1';
    case 'top_p':
      return isNumber(value) && value > 0 && value <= 1
        ? null
        : 'must be a number above 0 and at most 1';
    case 'reasoning_effort':
      return (REASONING_EFFORTS as readonly unknown[]).includes(value)
        ? null
        : `must be one of ${REASONING_EFFORTS.join(', ')}`;
  }
}

/** The first setting of `config` the engine would refuse, in a sentence; null when none. */
export function firstSamplingProblem(config: Partial<GeneratorConfig>): string | null {
  for (const key of SAMPLING_KEYS) {
    if (!(key in config)) continue;
    const problem = samplingProblem(key, config[key]);
    if (problem) return `${SAMPLING_LABELS[key]} ${problem} (empty: the provider's default).`;
  }
  return null;
}

export type Parsed = { ok: true; value: number | null } | { ok: false; reason: string };

/**
 * Read what was typed into a numeric setting's field: empty is "not set" (null); text
 * that is not a number is refused here, a number out of range by `samplingProblem`.
 */
export function parseSampling(key: NumericSamplingKey, text: string): Parsed {
  const trimmed = text.trim();
  if (!trimmed) return { ok: true, value: null };
  const value = Number(trimmed);
  if (!Number.isFinite(value))
    return { ok: false, reason: `${SAMPLING_LABELS[key]} must be a number.` };
  return { ok: true, value };
}

/** How a setting's value shows in its field: empty when not set. */
export function samplingText(value: number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}
