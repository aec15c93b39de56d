/** The provider form: what the user types, its checks, and the request body built from it. */
import { ApiError } from '@/lib/api/errors';
import type { Provider } from '@/lib/api/types';

export type ProviderKind = 'language' | 'embedding';

export type ProviderFormValues = {
  name: string;
  kind: ProviderKind;
  model: string;
  apiBase: string;
  /** Write-only: empty keeps the stored key on edit (unless `clearKey`), none on create. */
  apiKey: string;
  clearKey: boolean;
  /** The extra constructor arguments, as JSON text (an object). */
  params: string;
};

export type ProviderBody = {
  name: string;
  kind: ProviderKind;
  model: string;
  api_base: string;
  params: Record<string, unknown>;
  api_key?: string | null;
};

export type ProviderFormErrors = Partial<Record<keyof ProviderFormValues, string>>;

export function emptyProviderForm(): ProviderFormValues {
  return {
    name: '',
    kind: 'language',
    model: '',
    apiBase: '',
    apiKey: '',
    clearKey: false,
    params: '{}',
  };
}

/** The form for editing a stored provider (its key is never sent back: the field starts empty). */
export function providerFormOf(provider: Provider): ProviderFormValues {
  return {
    name: provider.name,
    kind: provider.kind ?? 'language',
    model: provider.model,
    apiBase: provider.api_base ?? '',
    apiKey: '',
    clearKey: false,
    params: JSON.stringify(provider.params ?? {}, null, 2),
  };
}

const URL_PATTERN = /^https?:\/\/[^\s/]+/i;
const MODEL_PATTERN = /^\S+$/;

/**
 * Check the form and build the request body. The API key is only sent when typed
 * (or as `""` when the user clears it on edit), so an edit keeps the stored key.
 */
export function validateProviderForm(
  values: ProviderFormValues,
): { ok: true; body: ProviderBody } | { ok: false; errors: ProviderFormErrors } {
  const errors: ProviderFormErrors = {};
  const name = values.name.trim();
  const model = values.model.trim();
  const apiBase = values.apiBase.trim();
  if (!name) errors.name = 'A name is required.';
  else if (name.length > 200) errors.name = 'At most 200 characters.';
  if (!model) errors.model = 'A model is required, e.g. openai/gpt-4o-mini.';
  else if (!MODEL_PATTERN.test(model)) errors.model = 'A model name has no spaces.';
  else if (model.length > 300) errors.model = 'At most 300 characters.';
  if (apiBase && !URL_PATTERN.test(apiBase))
    errors.apiBase = 'An http(s) URL, e.g. http://127.0.0.1:8080/v1.';
  else if (apiBase.length > 200) errors.apiBase = 'At most 200 characters.';
  let params: Record<string, unknown> = {};
  const text = values.params.trim();
  if (text) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        errors.params = 'A JSON object, e.g. {"temperature": 0.2}.';
      else params = parsed as Record<string, unknown>;
    } catch {
      errors.params = 'Not valid JSON.';
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const body: ProviderBody = { name, kind: values.kind, model, api_base: apiBase, params };
  if (values.clearKey) body.api_key = '';
  else if (values.apiKey) body.api_key = values.apiKey;
  return { ok: true, body };
}

/** The form field (one that shows an error) each request-body field's server error belongs to. */
const SERVER_FIELDS: Record<string, keyof ProviderFormValues> = {
  name: 'name',
  model: 'model',
  api_base: 'apiBase',
  params: 'params',
};

/**
 * The server's refusal of a save, placed beside the fields it names: an address the
 * outgoing-request policy refuses goes under "API base URL" with what the administrator
 * would have to allow; a refused param (`params.cache_dir`) under "Params", naming it.
 * What names no field stays in `rest`, for the form's alert.
 */
export function serverErrors(error: Error | null): {
  fields: ProviderFormErrors;
  rest: string[];
} {
  if (!error) return { fields: {}, rest: [] };
  if (!(error instanceof ApiError)) return { fields: {}, rest: [error.message] };
  const fields: ProviderFormErrors = {};
  const rest: string[] = [];
  for (const problem of error.problems) {
    const head = problem.path.split('.')[0] ?? '';
    const field = SERVER_FIELDS[head];
    if (!field) {
      rest.push(problem.path ? `${problem.path}: ${problem.message}` : problem.message);
      continue;
    }
    const detail = problem.path.includes('.')
      ? `${problem.path}: ${problem.message}`
      : problem.message;
    fields[field] = fields[field] ? `${fields[field]} ${detail}` : detail;
  }
  return { fields, rest };
}
