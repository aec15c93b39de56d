import { useState } from 'react';
import { useCreateProvider } from '@/lib/api/ops/providersCreate';
import { useProviders } from '@/lib/api/ops/providersList';
import type { Provider } from '@/lib/api/types';
import { ProviderForm } from '@/lib/providers/ProviderForm';
import { useDeleteProvider } from './api/providersDestroy';
import { useUpdateProvider } from './api/providersPartialUpdate';
import { useSetDefaultProvider } from './api/providersSetDefault';
import { useTestProvider } from './api/providersTest';
import { describeCheck } from './model/connectionCheck';

const COLUMNS = 6;

/** The result row under a provider once "Test connection" was pressed. */
function CheckRow({ test }: { test: ReturnType<typeof useTestProvider> }) {
  if (test.isIdle) return null;
  let text: string;
  let tone = 'note';
  if (test.isPending) text = 'Testing the connection…';
  else if (test.isError) {
    text = `The test could not run: ${test.error.message}`;
    tone = 'alert';
  } else {
    text = describeCheck(test.data);
    if (!test.data.ok) tone = 'alert';
  }
  return (
    <tr>
      <td colSpan={COLUMNS}>
        <p className={tone} role="status" style={{ margin: 0, whiteSpace: 'pre-wrap' }}>
          {text}
        </p>
      </td>
    </tr>
  );
}

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
                <ProviderRow
                  key={p.id}
                  provider={p}
                  onEdit={() => setEditing(p)}
                  onSetDefault={() => setDefault.mutate(p.id)}
                  confirming={confirming === p.id}
                  onConfirm={() => setConfirming(p.id)}
                  onDelete={() => remove.mutate(p.id, { onSettled: () => setConfirming(null) })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type RowProps = {
  provider: Provider;
  onEdit: () => void;
  onSetDefault: () => void;
  confirming: boolean;
  onConfirm: () => void;
  onDelete: () => void;
};

/** The params an upgrade removed from a provider (no settings of its kind), by name. */
function droppedParams(p: Provider): string[] {
  const dropped = p.dropped_params;
  return dropped && typeof dropped === 'object' ? Object.keys(dropped).sort() : [];
}

/** One provider, its actions, and the result of its last connection test. */
function ProviderRow({
  provider: p,
  onEdit,
  onSetDefault,
  confirming,
  onConfirm,
  onDelete,
}: RowProps) {
  const test = useTestProvider();
  return (
    <>
      <tr>
        <td>
          {p.name} {p.is_default && <span className="badge">default</span>}
        </td>
        <td>{p.kind}</td>
        <td className="mono">
          {p.model}
          {droppedParams(p).length > 0 && (
            <p className="note" style={{ margin: 0 }}>
              Removed params (not settings of this kind): {droppedParams(p).join(', ')}
            </p>
          )}
        </td>
        <td className="mono">{p.api_base || '—'}</td>
        <td>{p.has_api_key ? 'stored' : '—'}</td>
        <td style={{ whiteSpace: 'nowrap' }}>
          <button
            type="button"
            className="btn btn-small"
            onClick={onEdit}
            aria-label={`Edit ${p.name}`}
          >
            Edit
          </button>{' '}
          {!p.is_default && (
            <button
              type="button"
              className="btn btn-small"
              onClick={onSetDefault}
              aria-label={`Make ${p.name} the default`}
            >
              Make default
            </button>
          )}{' '}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => test.mutate(p.id)}
            disabled={test.isPending}
            aria-label={`Test the connection of ${p.name}`}
          >
            Test connection
          </button>{' '}
          {confirming ? (
            <button type="button" className="btn btn-small btn-danger" onClick={onDelete}>
              Confirm delete
            </button>
          ) : (
            <button
              type="button"
              className="btn btn-small"
              onClick={onConfirm}
              aria-label={`Delete ${p.name}`}
            >
              Delete
            </button>
          )}
        </td>
      </tr>
      <CheckRow test={test} />
    </>
  );
}
