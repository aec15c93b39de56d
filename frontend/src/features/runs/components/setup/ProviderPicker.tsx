import { useState } from 'react';
import { useCreateProvider } from '@/lib/api/ops/providersCreate';
import type { Provider } from '@/lib/api/types';
import { FormField } from '@/lib/components/FormField';
import { ProviderForm } from '@/lib/providers/ProviderForm';

/**
 * The language model a run (or a judge) calls, with a quick add of a new one that it then
 * picks.
 */
export function ProviderPicker({
  providers,
  value,
  onChange,
  label = 'Provider',
  id = 'run-provider',
  none,
}: {
  /** The language providers to offer. */
  providers: Provider[];
  value: number | null;
  onChange: (providerId: number | null) => void;
  label?: string;
  id?: string;
  /** Offer "no pick" first, under this name (a judge's: the run's provider). */
  none?: string;
}) {
  const [adding, setAdding] = useState(false);
  const create = useCreateProvider();
  return (
    <>
      <FormField label={label} id={id}>
        {(control) => (
          <div style={{ display: 'flex', gap: 6 }}>
            <select
              {...control}
              className="select"
              value={value ?? ''}
              onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
            >
              {none !== undefined && <option value="">{none}</option>}
              {providers.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name} ({p.model})
                </option>
              ))}
            </select>
            <button type="button" className="btn" onClick={() => setAdding((v) => !v)}>
              {adding ? 'Cancel' : 'Add…'}
            </button>
          </div>
        )}
      </FormField>
      {adding && (
        <ProviderForm
          nested
          provider={null}
          initial={{ model: 'openai/' }}
          kinds={['language']}
          pending={create.isPending}
          error={create.error}
          onSubmit={(body) =>
            create.mutate(body, {
              onSuccess: (provider) => {
                onChange(provider.id);
                setAdding(false);
              },
            })
          }
        />
      )}
    </>
  );
}
