import type { TryRequest } from '@/lib/api/ops/scorers';

/** Where each row's y_pred comes from in the try pane. */
export type PredictionMode = 'targets' | 'fields' | 'json';

export type TryForm = {
  dataset: number | null;
  /** A version number, or null for the latest. */
  datasetVersion: number | null;
  /** "0, 3, 7" or "2-5": row positions; empty: the first `limit` rows. */
  rows: string;
  limit: number;
  mode: PredictionMode;
  /** mode "fields": one "prediction field = row field" per line. */
  fields: string;
  /** mode "json": one object for every row, or a list with one per row. */
  json: string;
};

export const EMPTY_TRY: TryForm = {
  dataset: null,
  datasetVersion: null,
  rows: '',
  limit: 5,
  mode: 'targets',
  fields: 'answer = output.answer',
  json: '{"answer": ""}',
};

export const MAX_TRY_ROWS = 50;

export type Built = { request: TryRequest | null; errors: Partial<Record<keyof TryForm, string>> };

/** "0, 3, 5-7" as [0, 3, 5, 6, 7], or the problem. */
export function parseRows(text: string): number[] | string {
  const rows: number[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    if (!part) continue;
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(part);
    if (range) {
      const [from, to] = [Number(range[1]), Number(range[2])];
      if (to < from) return `${part}: the end comes before the start`;
      for (let row = from; row <= to; row += 1) rows.push(row);
    } else if (/^\d+$/.test(part)) rows.push(Number(part));
    else return `${part} is not a row number`;
    if (rows.length > MAX_TRY_ROWS) return `at most ${MAX_TRY_ROWS} rows`;
  }
  return rows;
}

/** "answer = output.answer" lines as {answer: "output.answer"}, or the problem. */
export function parseFieldMapping(text: string): Record<string, string> | string {
  const mapping: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line) continue;
    const [key, value, ...rest] = line.split('=').map((p) => p.trim());
    if (!key || !value || rest.length) return `"${line}": write prediction field = row field`;
    mapping[key] = value;
  }
  return Object.keys(mapping).length ? mapping : 'map at least one field';
}

/** The try request of the pane's form (`version` or unsaved `source`), or what is wrong. */
export function buildTryRequest(form: TryForm, what: { version?: number; source?: string }): Built {
  const errors: Built['errors'] = {};
  if (form.dataset === null) errors.dataset = 'pick a dataset';
  const rows = parseRows(form.rows);
  if (typeof rows === 'string') errors.rows = rows;
  if (!Number.isInteger(form.limit) || form.limit < 1 || form.limit > MAX_TRY_ROWS)
    errors.limit = `1 to ${MAX_TRY_ROWS}`;
  let prediction: Pick<TryRequest, 'prediction' | 'prediction_fields'> = {};
  if (form.mode === 'fields') {
    const mapping = parseFieldMapping(form.fields);
    if (typeof mapping === 'string') errors.fields = mapping;
    else prediction = { prediction_fields: mapping };
  } else if (form.mode === 'json') {
    try {
      prediction = { prediction: JSON.parse(form.json) as unknown };
    } catch (error) {
      errors.json = `not JSON: ${(error as Error).message}`;
    }
  }
  if (Object.keys(errors).length || form.dataset === null || typeof rows === 'string')
    return { request: null, errors };
  return {
    request: {
      dataset: form.dataset,
      ...(form.datasetVersion !== null ? { dataset_version: form.datasetVersion } : {}),
      ...(rows.length ? { rows } : {}),
      limit: form.limit,
      ...(what.source !== undefined ? { source: what.source } : {}),
      ...(what.version !== undefined ? { version: what.version } : {}),
      ...prediction,
    },
    errors,
  };
}
