import { useState } from 'react';
import { useCreateProvider } from '@/lib/api/ops/providersCreate';
import { useProviders } from '@/lib/api/ops/providersList';
import type { Provider } from '@/lib/api/types';
import { ProviderForm } from '@/lib/providers/ProviderForm';
import { useDeleteProvider } from './api/providersDestroy';
import { useUpdateProvider } from './api/providersPartialUpdate';
import { useSetDefaultProvider } from './api/providersSetDefault';

/** Add or edit one provider: the shared form, sent as a create or an update. */
function ProviderEditor({ provider, onDone }: { provider: Provider | null; onDone: () => void }) {
  const create = useCreateProvider();
  const update = useUpdateProvider();
  const mutation = provider ? update : create;
  return (
    <ProviderForm
      provider={provider}
      pending={mutation.isPending}
      error={mutation.error}
      onSubmit={(body) => {
        if (provider) update.mutate({ id: provider.id, body }, { onSuccess: () => onDone() });
        else create.mutate(body, { onSuccess: () => onDone() });
      }}
      onCancel={onDone}
    />
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
