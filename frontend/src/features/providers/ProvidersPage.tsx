import { useState } from 'react';
import { useProviders } from '@/lib/api/ops/providersList';
import type { Provider } from '@/lib/api/types';
import { useProviderCatalogue } from './api/providersCatalogue';
import { useCreateProvider } from '@/lib/api/ops/providersCreate';
import { useDeleteProvider } from './api/providersDestroy';
import { useUpdateProvider } from './api/providersPartialUpdate';
import { useSetDefaultProvider } from './api/providersSetDefault';
import {
  emptyProviderForm,
  providerFormOf,
  validateProviderForm,
  type ProviderFormErrors,
  type ProviderFormValues,
  type ProviderKind,
} from './model/providerForm';

/** Add or edit one provider; the catalogue fills the model and kind. */
function ProviderEditor({ provider, onDone }: { provider: Provider | null; onDone: () => void }) {
  const [values, setValues] = useState<ProviderFormValues>(() =>
    provider ? providerFormOf(provider) : emptyProviderForm(),
  );
  const [errors, setErrors] = useState<ProviderFormErrors>({});
  const catalogue = useProviderCatalogue();
  const create = useCreateProvider();
  const update = useUpdateProvider();
  const mutation = provider ? update : create;
  const set = (patch: Partial<ProviderFormValues>) => setValues((v) => ({ ...v, ...patch }));
  const submit = () => {
    const checked = validateProviderForm(values);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    if (provider)
      update.mutate({ id: provider.id, body: checked.body }, { onSuccess: () => onDone() });
    else create.mutate(checked.body, { onSuccess: () => onDone() });
  };
  const error = (key: keyof ProviderFormValues) =>
    errors[key] ? (
      <div className="field-error" role="alert">
        {errors[key]}
      </div>
    ) : null;
  const entries = catalogue.data ?? [];
  return (
    <form
      className="card"
      aria-label={provider ? `Edit ${provider.name}` : 'New provider'}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h2>{provider ? `Edit ${provider.name}` : 'New provider'}</h2>
      {entries.length > 0 && (
        <div className="form-row">
          <label htmlFor="provider-catalogue">From the catalogue</label>
          <select
            id="provider-catalogue"
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
        </div>
      )}
      <div className="form-row">
        <label htmlFor="provider-name">Name</label>
        <input
          id="provider-name"
          className="input"
          value={values.name}
          onChange={(e) => set({ name: e.target.value })}
        />
        {error('name')}
      </div>
      <div className="form-row">
        <label htmlFor="provider-kind">Kind</label>
        <select
          id="provider-kind"
          className="select"
          value={values.kind}
          onChange={(e) => set({ kind: e.target.value as ProviderKind })}
        >
          <option value="language">language</option>
          <option value="embedding">embedding</option>
        </select>
      </div>
      <div className="form-row">
        <label htmlFor="provider-model">Model (litellm)</label>
        <input
          id="provider-model"
          className="input mono"
          placeholder="openai/gpt-4o-mini"
          value={values.model}
          onChange={(e) => set({ model: e.target.value })}
        />
        {error('model')}
      </div>
      <div className="form-row">
        <label htmlFor="provider-base">API base URL</label>
        <input
          id="provider-base"
          className="input mono"
          placeholder="http://127.0.0.1:8080/v1"
          value={values.apiBase}
          onChange={(e) => set({ apiBase: e.target.value })}
        />
        {error('apiBase')}
      </div>
      <div className="form-row">
        <label htmlFor="provider-key">API key</label>
        <input
          id="provider-key"
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
      </div>
      <div className="form-row">
        <label htmlFor="provider-params">Params (JSON)</label>
        <textarea
          id="provider-params"
          className="textarea mono"
          rows={3}
          value={values.params}
          onChange={(e) => set({ params: e.target.value })}
        />
        {error('params')}
      </div>
      {mutation.isError && (
        <div className="alert" role="alert">
          {mutation.error.message}
        </div>
      )}
      <div style={{ display: 'flex', gap: 8, marginTop: 8 }}>
        <button type="submit" className="btn btn-primary" disabled={mutation.isPending}>
          {provider ? 'Save provider' : 'Add provider'}
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** /providers: the language and embedding models the user's programs and runs call. */
export default function ProvidersPage() {
  const providers = useProviders();
  const remove = useDeleteProvider();
  const setDefault = useSetDefaultProvider();
  // undefined: no form; null: a new provider; a provider: editing it.
  const [editing, setEditing] = useState<Provider | null | undefined>(undefined);
  const [confirming, setConfirming] = useState<number | null>(null);
  const list = providers.data ?? [];
  return (
    <section className="page">
      <div className="page-head">
        <h1>Providers</h1>
        <button type="button" className="btn btn-primary" onClick={() => setEditing(null)}>
          New provider
        </button>
      </div>
      {editing !== undefined && (
        <ProviderEditor
          key={editing?.id ?? 'new'}
          provider={editing}
          onDone={() => setEditing(undefined)}
        />
      )}
      {providers.isError && <div className="alert">{providers.error.message}</div>}
      {(remove.isError || setDefault.isError) && (
        <div className="alert" role="alert">
          {(remove.error ?? setDefault.error)?.message}
        </div>
      )}
      {providers.isSuccess && list.length === 0 ? (
        <p className="note">No provider yet: add the model your programs will call.</p>
      ) : (
        <div className="card table-scroll">
          <table className="table" aria-label="Providers">
            <thead>
              <tr>
                <th>Name</th>
                <th>Kind</th>
                <th>Model</th>
                <th>API base</th>
                <th>API key</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((p) => (
                <tr key={p.id}>
                  <td>
                    {p.name} {p.is_default && <span className="badge">default</span>}
                  </td>
                  <td>{p.kind}</td>
                  <td className="mono">{p.model}</td>
                  <td className="mono">{p.api_base || '—'}</td>
                  <td>{p.has_api_key ? 'stored' : '—'}</td>
                  <td style={{ whiteSpace: 'nowrap' }}>
                    <button
                      type="button"
                      className="btn btn-small"
                      onClick={() => setEditing(p)}
                      aria-label={`Edit ${p.name}`}
                    >
                      Edit
                    </button>{' '}
                    {!p.is_default && (
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => setDefault.mutate(p.id)}
                        aria-label={`Make ${p.name} the default`}
                      >
                        Make default
                      </button>
                    )}{' '}
                    {confirming === p.id ? (
                      <button
                        type="button"
                        className="btn btn-small btn-danger"
                        onClick={() =>
                          remove.mutate(p.id, { onSettled: () => setConfirming(null) })
                        }
                      >
                        Confirm delete
                      </button>
                    ) : (
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => setConfirming(p.id)}
                        aria-label={`Delete ${p.name}`}
                      >
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
