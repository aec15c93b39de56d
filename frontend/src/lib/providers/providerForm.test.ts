import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api/errors';
import {
  emptyProviderForm,
  providerFormOf,
  serverErrors,
  validateProviderForm,
  type ProviderFormValues,
} from './providerForm';

const form = (patch: Partial<ProviderFormValues>): ProviderFormValues => ({
  ...emptyProviderForm(),
  name: 'local',
  model: 'openai/scripted',
  ...patch,
});

describe('validateProviderForm', () => {
  it('builds the body; no key typed sends no key', () => {
    const result = validateProviderForm(
      form({ apiBase: ' http://127.0.0.1:8080/v1 ', params: '{"temperature": 0.2}' }),
    );
    expect(result).toEqual({
      ok: true,
      body: {
        name: 'local',
        kind: 'language',
        model: 'openai/scripted',
        api_base: 'http://127.0.0.1:8080/v1',
        params: { temperature: 0.2 },
      },
    });
  });

  it('sends a typed key, and an empty one to remove the stored key', () => {
    const typed = validateProviderForm(form({ apiKey: 'sk-1' }));
    expect(typed.ok && typed.body.api_key).toBe('sk-1');
    const cleared = validateProviderForm(form({ clearKey: true }));
    expect(cleared.ok && cleared.body.api_key).toBe('');
  });

  it('names each field that is wrong', () => {
    const result = validateProviderForm(
      form({ name: '  ', model: 'gpt 4', apiBase: 'localhost:8080', params: '[1]' }),
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && Object.keys(result.errors).sort()).toEqual([
      'apiBase',
      'model',
      'name',
      'params',
    ]);
    const broken = validateProviderForm(form({ model: '', params: '{oops' }));
    expect(!broken.ok && broken.errors).toEqual({
      model: 'A model is required, e.g. openai/gpt-4o-mini.',
      params: 'Not valid JSON.',
    });
  });

  it('accepts an empty params box as no params', () => {
    const result = validateProviderForm(form({ params: '' }));
    expect(result.ok && result.body.params).toEqual({});
  });
});

describe('providerFormOf', () => {
  it('starts an edit from the stored provider, never with its key', () => {
    const values = providerFormOf({
      id: 3,
      name: 'hosted',
      kind: 'embedding',
      model: 'openai/text-embedding-3-small',
      api_base: '',
      has_api_key: true,
      dropped_params: {},
      params: { dimensions: 256 },
      is_default: true,
      created_at: '2026-01-01T00:00:00Z',
    });
    expect(values).toMatchObject({ name: 'hosted', kind: 'embedding', apiKey: '' });
    expect(JSON.parse(values.params)).toEqual({ dimensions: 256 });
  });
});

describe('serverErrors', () => {
  it('puts a refused address under the API base field, with what to allow', () => {
    const refusal =
      'refused by the outgoing-request policy: 127.0.0.1:9 is a loopback address; an ' +
      'administrator would have to allow it: add 127.0.0.1:9 to STUDIO_ALLOWED_OUTGOING';
    const error = new ApiError(400, { api_base: [refusal] });
    expect(serverErrors(error)).toEqual({ fields: { apiBase: refusal }, rest: [] });
  });

  it('names a refused param under the params field; the rest stays for the alert', () => {
    const error = new ApiError(400, {
      'params.cache_dir': ['not a setting of openai providers'],
      detail: 'and something else',
    });
    expect(serverErrors(error)).toEqual({
      fields: { params: 'params.cache_dir: not a setting of openai providers' },
      rest: ['and something else'],
    });
  });

  it('keeps a network failure as it is', () => {
    expect(serverErrors(new Error('Failed to fetch'))).toEqual({
      fields: {},
      rest: ['Failed to fetch'],
    });
    expect(serverErrors(null)).toEqual({ fields: {}, rest: [] });
  });
});
