/**
 * Run setup's choices of what to train: the program, version, dataset and provider the
 * user picked (or the defaults until they pick), and what the chosen program and
 * dataset tell the rest of the form (output fields, LM modules, the call estimate).
 */
import type { DatasetSummary, ProgramVersionSummary, Provider } from '@/lib/api/types';
import { estimateCalls, type Estimate } from './estimate';
import type { Parsed } from './runConfig';

/** What the user picked; null: not picked yet, the default applies. */
export type RunTarget = {
  name: string;
  programId: number | null;
  versionNumber: number | null;
  datasetId: number | null;
  /** The dataset version's number; null: the dataset's newest. */
  datasetVersion: number | null;
  providerId: number | null;
};

export function emptyTarget(programId: number | null = null): RunTarget {
  return {
    name: '',
    programId,
    versionNumber: null,
    datasetId: null,
    datasetVersion: null,
    providerId: null,
  };
}

/** The dataset version picked (versions come newest first), or the newest; null while none. */
export function pickedDatasetVersion<V extends { number: number }>(
  picked: number | null,
  versions: V[],
): V | null {
  return versions.find((v) => v.number === picked) ?? versions[0] ?? null;
}

export type ResolvedTarget = {
  programId: number | null;
  versionNumber: number | null;
  versionId: number | null;
  /** The datasets a run can train on (validated ones). */
  datasets: DatasetSummary[];
  dataset: DatasetSummary | null;
  /** The providers a run can call (language models). */
  providers: Provider[];
  providerId: number | null;
};

/** The program picked, or the newest one (its versions are fetched before the rest resolves). */
export function pickedProgram(target: RunTarget, programs: { id: number }[]): number | null {
  return target.programId ?? programs[0]?.id ?? null;
}

/**
 * The picks, with the defaults filled in: the newest program and version, the first
 * valid dataset, the default language provider.
 */
export function resolveTarget(
  target: RunTarget,
  lists: {
    programs: { id: number }[];
    versions: ProgramVersionSummary[];
    datasets: DatasetSummary[];
    providers: Provider[];
  },
): ResolvedTarget {
  const programId = pickedProgram(target, lists.programs);
  const versionNumber = target.versionNumber ?? lists.versions[0]?.number ?? null;
  const versionId = lists.versions.find((v) => v.number === versionNumber)?.id ?? null;
  const datasets = lists.datasets.filter((d) => d.status === 'valid');
  const dataset = datasets.find((d) => d.id === target.datasetId) ?? datasets[0] ?? null;
  const providerId =
    target.providerId ??
    lists.providers.find((p) => p.kind === 'language' && p.is_default)?.id ??
    lists.providers[0]?.id ??
    null;
  return {
    programId,
    versionNumber,
    versionId,
    datasets,
    dataset,
    providers: lists.providers.filter((p) => p.kind === 'language'),
    providerId,
  };
}

/** The field names of a dataset's output schema (what the reward's masks choose from). */
export function fieldsOf(schema: unknown): string[] {
  const properties = (schema as { properties?: object } | null)?.properties;
  return properties ? Object.keys(properties) : [];
}

export function toggle(list: string[], item: string): string[] {
  return list.includes(item) ? list.filter((x) => x !== item) : [...list, item];
}

const LM_MODULES = new Set(['Generator', 'ChainOfThought']);

export type ProgramShape = { lmModules: number; trainableVariables: number };

/** What the estimate needs from a program document; 1 and 1 until the version is loaded. */
export function programShape(document: unknown): ProgramShape {
  const doc = document as
    | { program?: { modules?: { module?: { class_name?: string } }[] }; variables?: object }
    | undefined;
  return {
    lmModules:
      doc?.program?.modules?.filter((m) => LM_MODULES.has(m.module?.class_name ?? '')).length ?? 1,
    trainableVariables: doc?.variables ? Object.keys(doc.variables).length : 1,
  };
}

/** The LM calls the run will make; null without a dataset or with invalid fit settings. */
export function runEstimate(
  dataset: Pick<DatasetSummary, 'row_count' | 'test_fraction'> | null,
  shape: ProgramShape,
  optimizer: string,
  fit: Parsed,
): Estimate | null {
  if (!dataset || Object.keys(fit.errors).length) return null;
  return estimateCalls({
    rows: dataset.row_count,
    testFraction: dataset.test_fraction,
    lmModules: shape.lmModules,
    trainableVariables: shape.trainableVariables,
    optimizer,
    epochs: Number(fit.values.epochs),
    batchSize: Number(fit.values.batch_size),
    validationSplit: Number(fit.values.validation_split),
    // At evaluation temperature 0 (the default) each evaluation runs once: a repeat would
    // give the same answers (studio/runs/config.py, evaluation_settings).
    evaluations:
      Number(fit.values.evaluation_temperature ?? 0) > 0 ? Number(fit.values.evaluations) : 1,
  });
}
