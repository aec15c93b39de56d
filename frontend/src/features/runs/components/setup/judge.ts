/**
 * A judge's own choices (studio/runs/judges.py): the provider an LM judge calls (default:
 * the run's) and, for a program as judge, one of the user's program versions, whose output
 * must have a `reward` field. They go beside the entry's params, as `provider` / `program`.
 */
import type { CatalogueEntry } from '@/lib/api/types';

/** What the judge fields hold; null: not picked (the run's provider; no program yet). */
export type JudgeForm = {
  providerId: number | null;
  programId: number | null;
  versionNumber: number | null;
  /** The picked version's id: what the entry's `program` holds. */
  versionId: number | null;
};

export const NO_JUDGE: JudgeForm = {
  providerId: null,
  programId: null,
  versionNumber: null,
  versionId: null,
};

/** The settings the judge fields show themselves (a textarea, a scale with its labels). */
export const JUDGE_PARAMS = ['criteria', 'score_type'];

/** Whether the entry is a judge that calls a model (a provider of its own may be chosen). */
export function takesProvider(entry: CatalogueEntry | undefined): boolean {
  return Boolean(entry?.needs.some((n) => n === 'language_model' || n === 'program'));
}

/** Whether the entry's judge is one of the user's programs. */
export function takesProgram(entry: CatalogueEntry | undefined): boolean {
  return Boolean(entry?.needs.includes('program'));
}

/**
 * The keys the entry carries beside its params: the judge's provider when one is picked,
 * and the program version's id for a program judge.
 */
export function judgeKeys(
  entry: CatalogueEntry | undefined,
  judge: JudgeForm | undefined,
): { provider?: number; program?: number } {
  const keys: { provider?: number; program?: number } = {};
  if (!judge) return keys;
  if (takesProvider(entry) && judge.providerId !== null) keys.provider = judge.providerId;
  if (takesProgram(entry) && judge.versionId !== null) keys.program = judge.versionId;
  return keys;
}

type SavedModule = {
  name?: string;
  module?: { config?: { data_model?: { schema?: { properties?: object } } } };
};

/**
 * The output field names of a program document (its output modules' data models), or
 * null when the document does not tell (the server checks it then).
 */
export function documentOutputFields(document: unknown): string[] | null {
  const program = (document as { program?: { modules?: SavedModule[]; outputs?: unknown[] } })
    ?.program;
  if (!program?.modules || !Array.isArray(program.outputs)) return null;
  const fields: string[] = [];
  for (const wire of program.outputs) {
    const name = Array.isArray(wire) ? wire[0] : wire;
    const module = program.modules.find((m) => m.name === name);
    const properties = module?.module?.config?.data_model?.schema?.properties;
    if (!properties) return null;
    for (const key of Object.keys(properties)) if (!fields.includes(key)) fields.push(key);
  }
  return fields;
}

/** Why a program cannot judge (its output has no `reward` field), or null when it can. */
export function judgeRefusal(name: string, fields: string[] | null): string | null {
  if (fields === null || fields.includes('reward')) return null;
  return `${name} cannot judge: its output needs a 'reward' field (a number in [0, 1]); its output fields are ${fields.join(', ') || 'none'}`;
}

/** Why the judge cannot be sent yet (a program judge needs its version), or null. */
export function judgeError(
  entry: CatalogueEntry | undefined,
  judge: JudgeForm | undefined,
): string | null {
  if (!takesProgram(entry)) return null;
  return judge?.versionId ? null : 'choose the judge program and its version';
}

/** The server's problems with the judge's keys under `prefix` (`compile_config.reward`). */
export function serverJudgeErrors(
  problems: { path: string; message: string }[],
  prefix: string,
): { provider?: string; program?: string } {
  const errors: { provider?: string; program?: string } = {};
  for (const p of problems) {
    if (p.path === `${prefix}.provider`) errors.provider = p.message;
    if (p.path === `${prefix}.program`) errors.program = p.message;
  }
  return errors;
}
