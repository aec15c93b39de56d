/**
 * "Scored by": a run's reward and metrics in words, from its stored `compile_config` (as the
 * server stored it: code entries pinned to `{id, name, version}`, a judge's `provider` and
 * `program` ids filled in; studio/scorers/references.py, studio/runs/judges.py). Names
 * resolve through the catalogue (labels, comparisons, scales), the user's providers and
 * their program versions; what none of them names shows by its id, never as nothing.
 */
import type { Catalogue, CatalogueEntry, Provider } from '@/lib/api/types';

/** A program version, as a judge names it by id: its program's name and its number. */
export type ProgramVersionName = { program: string; number: number };

export type ScoredByContext = {
  catalogue?: Catalogue;
  providers?: readonly Provider[];
  /** Program versions by id (the judges' programs). */
  programVersions?: ReadonlyMap<number, ProgramVersionName>;
};

export type ScoredByLine = {
  slot: 'reward' | 'metric';
  /** What scores: "Exact match", "Code reward within_1pct, version 3". */
  title: string;
  /** The library editor at the pinned version (a code reward or metric). */
  link?: string;
  /** Its settings in words, one per line. */
  details: string[];
};

type Entry = {
  name: string;
  params: Record<string, unknown>;
  provider?: unknown;
  program?: unknown;
};

/** How long a judge's criteria may run on the line before it is cut (the full text: title). */
export const CRITERIA_CHARS = 120;

const CODE_ENTRIES = ['code_reward', 'code_metric'];
const MASKS: [string, string][] = [
  ['in_mask', 'reads only'],
  ['out_mask', 'ignores'],
  ['in_mask_pattern', 'reads only fields matching'],
  ['out_mask_pattern', 'ignores fields matching'],
];

/** A name in any spelling the server takes (`LMAsJudge`, `lm_as_judge`), for matching. */
const key = (name: string) => name.replace(/_/g, '').toLowerCase();

function entryOf(value: unknown): Entry | null {
  if (typeof value === 'string') return { name: value, params: {} };
  if (!value || typeof value !== 'object') return null;
  const entry = value as Record<string, unknown>;
  if (typeof entry.name !== 'string') return null;
  const params =
    entry.params && typeof entry.params === 'object'
      ? (entry.params as Record<string, unknown>)
      : {};
  return { name: entry.name, params, provider: entry.provider, program: entry.program };
}

/** The entries of a stored compile config: its reward, then its metrics. */
function entries(config: unknown): { slot: 'reward' | 'metric'; entry: Entry }[] {
  if (!config || typeof config !== 'object') return [];
  const { reward, metrics } = config as { reward?: unknown; metrics?: unknown };
  const found: { slot: 'reward' | 'metric'; entry: Entry }[] = [];
  const first = entryOf(reward);
  if (first) found.push({ slot: 'reward', entry: first });
  for (const metric of Array.isArray(metrics) ? metrics : []) {
    const entry = entryOf(metric);
    if (entry) found.push({ slot: 'metric', entry });
  }
  return found;
}

/** Whether the config scores with anything (the catalogue is then worth reading). */
export function hasScorers(config: unknown): boolean {
  return entries(config).length > 0;
}

/** The ids a config's judges name: their providers and their program versions. */
export function judgeIds(config: unknown): { providers: number[]; programVersions: number[] } {
  const ids = (pick: (e: Entry) => unknown) => [
    ...new Set(
      entries(config)
        .map(({ entry }) => pick(entry))
        .filter((v): v is number => typeof v === 'number'),
    ),
  ];
  return { providers: ids((e) => e.provider), programVersions: ids((e) => e.program) };
}

/** Text cut to `chars` at a word, with an ellipsis, when longer. */
export function shorten(text: string, chars = CRITERIA_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= chars) return flat;
  const cut = flat.slice(0, chars);
  const space = cut.lastIndexOf(' ');
  return `${(space > chars / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const listed = (value: unknown) =>
  Array.isArray(value) ? value.map(String).join(', ') : String(value);

function maskLines(params: Record<string, unknown>): string[] {
  return MASKS.flatMap(([name, words]) => {
    const value = params[name];
    if (value === null || value === undefined) return [];
    if (Array.isArray(value) && value.length === 0) return [];
    return [`${words} ${listed(value)}`];
  });
}

const number = (value: number) => String(Number(value.toPrecision(6)));

/** One field rule in words: its field, comparison, tolerance or pattern, and weight. */
export function ruleWords(
  rule: Record<string, unknown>,
  totalWeight: number,
  catalogue?: Catalogue,
): string {
  const field = String(rule.field ?? '?');
  const comparison = String(rule.comparison ?? 'exact');
  const label = catalogue?.comparisons.find((c) => c.name === comparison)?.label ?? comparison;
  let how = label.charAt(0).toLowerCase() + label.slice(1);
  if (comparison === 'numeric') {
    const tolerance = Number(rule.tolerance ?? 0);
    how = rule.relative
      ? `a number within ${number(tolerance * 100)} % of the expected`
      : tolerance === 0
        ? 'the same number'
        : `a number within ${number(tolerance)} of the expected`;
  } else if (comparison === 'regex') {
    how = `matches the pattern ${String(rule.pattern ?? '')}`;
  }
  const weight = Number(rule.weight ?? 1);
  const share =
    totalWeight > 0 && weight !== totalWeight
      ? `weight ${number(weight)} of ${number(totalWeight)}`
      : `weight ${number(weight)}`;
  return `${field}: ${how} (${share})`;
}

function providerName(value: unknown, providers?: readonly Provider[]): string {
  if (typeof value !== 'number') return "the run's provider";
  return providers?.find((p) => p.id === value)?.name ?? `provider #${value}`;
}

function catalogueEntry(
  slot: 'reward' | 'metric',
  name: string,
  catalogue?: Catalogue,
): CatalogueEntry | undefined {
  const list = slot === 'reward' ? catalogue?.rewards : catalogue?.metrics;
  return list?.find((e) => key(e.name) === key(name));
}

function line(slot: 'reward' | 'metric', entry: Entry, context: ScoredByContext): ScoredByLine {
  const { catalogue, providers, programVersions } = context;
  const { params } = entry;
  if (CODE_ENTRIES.includes(entry.name)) {
    const code = (params.code ?? {}) as { id?: unknown; name?: unknown; version?: unknown };
    const what = slot === 'reward' ? 'Code reward' : 'Code metric';
    const version = typeof code.version === 'number' ? `, version ${code.version}` : '';
    const link =
      typeof code.id === 'number'
        ? `/rewards/${code.id}${typeof code.version === 'number' ? `?version=${code.version}` : ''}`
        : undefined;
    return {
      slot,
      title: `${what} ${String(code.name ?? '?')}${version}`,
      link,
      details: maskLines(params),
    };
  }
  const found = catalogueEntry(slot, entry.name, catalogue);
  const title = found?.label ?? entry.name;
  const details: string[] = [];
  if (Array.isArray(params.rules)) {
    const rules = params.rules as Record<string, unknown>[];
    const total = rules.reduce((sum, r) => sum + Number(r.weight ?? 1), 0);
    details.push(...rules.map((rule) => ruleWords(rule, total, catalogue)));
    details.push('the weighted mean of the rules');
  }
  const needs = found?.needs ?? [];
  const judgesWithModel =
    needs.includes('language_model') || 'criteria' in params || 'score_type' in params;
  if (judgesWithModel && !needs.includes('program')) {
    const scaleName = String(
      params.score_type ?? found?.params.find((p) => p.name === 'score_type')?.default ?? 'Score',
    );
    const scale = catalogue?.score_types.find((s) => s.name === scaleName)?.label ?? scaleName;
    details.push(`scale: ${scale}`);
    const criteria = typeof params.criteria === 'string' ? params.criteria.trim() : '';
    details.push(
      criteria
        ? `criteria: ${shorten(criteria)}`
        : 'criteria: none (correctness and completeness against the expected output)',
    );
    details.push(`judged by ${providerName(entry.provider, providers)}`);
  }
  if (needs.includes('program') || entry.program !== undefined) {
    const id = entry.program;
    const version = typeof id === 'number' ? programVersions?.get(id) : undefined;
    details.push(
      version
        ? `judge program: ${version.program}, version ${version.number}`
        : `judge program: version #${typeof id === 'number' ? id : '?'}`,
    );
    details.push(`on ${providerName(entry.provider, providers)}`);
  }
  details.push(...maskLines(params));
  return { slot, title, details };
}

/** The run's reward, then each metric, in words (nothing when the config names none). */
export function scoredBy(config: unknown, context: ScoredByContext = {}): ScoredByLine[] {
  return entries(config).map(({ slot, entry }) => line(slot, entry, context));
}
