import { useState } from 'react';
import { useProviderCatalogue } from '@/lib/api/ops/providersCatalogue';
import type { Provider } from '@/lib/api/types';
import { FormField } from '@/lib/components/FormField';
import {
  emptyProviderForm,
  providerFormOf,
  serverErrors,
  validateProviderForm,
  type ProviderBody,
  type ProviderFormErrors,
  type ProviderFormValues,
  type ProviderKind,
} from './providerForm';

const ALL_KINDS: ProviderKind[] = ['language', 'embedding'];

type ProviderFormProps = {
  /** The provider being edited; null for a new one. */
  provider: Provider | null;
  /** Values a new provider starts from (run setup starts the model at `openai/`). */
  initial?: Partial<ProviderFormValues>;
  /** The kinds offered; with one, the kind is fixed and the catalogue shows only that kind. */
  kinds?: ProviderKind[];
  /**
   * Inside another form (run setup): a fieldset, since forms do not nest, whose Enter key
   * and button add the provider instead of submitting the outer form.
   */
  nested?: boolean;
  pending: boolean;
  error: Error | null;
  /** Called with the checked request body; the caller creates or updates. */
  onSubmit: (body: ProviderBody) => void;
  onCancel?: () => void;
};

/**
 * Add or edit a language or embedding model: the providers page and run setup's quick
 * add. The catalogue fills the model and kind; the values are checked before the
 * caller sends them.
 */
export function ProviderForm({
  provider,
  initial,
  kinds = ALL_KINDS,
  nested = false,
  pending,
  error,
  onSubmit,
  onCancel,
}: ProviderFormProps) {
  const [values, setValues] = useState<ProviderFormValues>(() =>
    provider
      ? providerFormOf(provider)
      : { ...emptyProviderForm(), kind: kinds[0] ?? 'language', ...initial },
  );
  const [errors, setErrors] = useState<ProviderFormErrors>({});
  const catalogue = useProviderCatalogue();
  const entries = (catalogue.data ?? []).filter((entry) =>
    kinds.includes(entry.kind ?? 'language'),
  );
  const set = (patch: Partial<ProviderFormValues>) => setValues((v) => ({ ...v, ...patch }));
  const submit = () => {
    const checked = validateProviderForm(values);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    onSubmit(checked.body);
  };
  const title = provider ? `Edit ${provider.name}` : 'New provider';
  // The last save's refusal, beside the fields it names (the form's own checks first).
  const server = serverErrors(error);
  const shown = (field: keyof ProviderFormValues) => errors[field] ?? server.fields[field];

  const fields = (
    <>
      {entries.length > 0 && (
        <FormField label="From the catalogue">
          {(control) => (
            <select
              {...control}
              className="select"
              value=""
              onChange={(e) => {
                const entry = entries[Number(e.target.value)];
                if (!entry) return;
                set({
                  model: entry.model,
                  kind: entry.kind ?? 'language',
                  name: values.name || entry.label,
                });
              }}
            >
              <option value="">Choose a known model…</option>
              {entries.map((entry, i) => (
                <option key={`${entry.model}-${i}`} value={i}>
                  {entry.label} ({entry.kind}
                  {entry.local ? ', local' : ''}
                  {entry.needs_api_key ? ', needs a key' : ''})
                </option>
              ))}
            </select>
          )}
        </FormField>
      )}
      <FormField label="Name" error={shown('name')} alert>
        {(control) => (
          <input
            {...control}
            className="input"
            value={values.name}
            onChange={(e) => set({ name: e.target.value })}
          />
        )}
      </FormField>
      {kinds.length > 1 && (
        <FormField label="Kind">
          {(control) => (
            <select
              {...control}
              className="select"
              value={values.kind}
              onChange={(e) => set({ kind: e.target.value as ProviderKind })}
            >
              {kinds.map((kind) => (
                <option key={kind} value={kind}>
                  {kind}
                </option>
              ))}
            </select>
          )}
        </FormField>
      )}
      <FormField label="Model (litellm)" error={shown('model')} alert>
        {(control) => (
          <input
            {...control}
            className="input mono"
            placeholder="openai/gpt-4o-mini"
            value={values.model}
            onChange={(e) => set({ model: e.target.value })}
          />
        )}
      </FormField>
      <FormField label="API base URL" error={shown('apiBase')} alert>
        {(control) => (
          <input
            {...control}
            className="input mono"
            placeholder="https://api.example.com/v1"
            value={values.apiBase}
            onChange={(e) => set({ apiBase: e.target.value })}
          />
        )}
      </FormField>
      <p className="note" style={{ margin: '0 0 8px' }}>
        The studio calls public addresses only. A server on this machine or your network (Ollama,
        vLLM) works once the administrator allows it in STUDIO_ALLOWED_OUTGOING.
      </p>
      <FormField label="API key">
        {(control) => (
          <>
            <input
              {...control}
              type="password"
              className="input"
              autoComplete="off"
              placeholder={provider?.has_api_key ? 'stored; type to replace' : ''}
              disabled={values.clearKey}
              value={values.apiKey}
              onChange={(e) => set({ apiKey: e.target.value })}
            />
            {provider?.has_api_key && (
              <label className="note" style={{ gridColumn: 2 }}>
                <input
                  type="checkbox"
                  checked={values.clearKey}
                  onChange={(e) => set({ clearKey: e.target.checked, apiKey: '' })}
                />{' '}
                Remove the stored key
              </label>
            )}
          </>
        )}
      </FormField>
      <FormField label="Params (JSON)" error={shown('params')} alert>
        {(control) => (
          <textarea
            {...control}
            className="textarea mono"
            rows={3}
            value={values.params}
            onChange={(e) => set({ params: e.target.value })}
          />
        )}
      </FormField>
      {server.rest.length > 0 && (
        <div className="alert" role="alert">
          {server.rest.join(' ')}
        </div>
      )}
    </>
  );
  const buttons = (
    <div style={{ display: 'flex', gap: 8, marginTop: 8 }}>
      <button
        type={nested ? 'button' : 'submit'}
        className={nested ? 'btn' : 'btn btn-primary'}
        disabled={pending}
        onClick={nested ? submit : undefined}
      >
        {provider ? 'Save provider' : 'Add provider'}
      </button>
      {onCancel && (
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );

  if (nested)
    return (
      <fieldset
        className="card"
        style={{ margin: '6px 0' }}
        aria-label={title}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && e.target instanceof HTMLInputElement) {
            e.preventDefault();
            submit();
          }
        }}
      >
        <legend>{title}</legend>
        {fields}
        {buttons}
      </fieldset>
    );
  return (
    <form
      className="card"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h2>{title}</h2>
      {fields}
      {buttons}
    </form>
  );
}
