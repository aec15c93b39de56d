import { useState } from 'react';
import { useCreateProvider } from '@/lib/api/ops/providersCreate';

/** Add an OpenAI-compatible (or hosted) language model as a provider. */
export function ProviderForm({ onCreated }: { onCreated: (id: number) => void }) {
  const create = useCreateProvider();
  const [name, setName] = useState('');
  const [model, setModel] = useState('openai/');
  const [apiBase, setApiBase] = useState('');
  const [apiKey, setApiKey] = useState('');
  return (
    <fieldset className="card" style={{ margin: '6px 0' }} aria-label="New provider">
      <legend>New provider</legend>
      <div className="form-row">
        <label htmlFor="provider-name">Name</label>
        <input
          id="provider-name"
          className="input"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <div className="form-row">
        <label htmlFor="provider-model">Model (litellm)</label>
        <input
          id="provider-model"
          className="input mono"
          value={model}
          onChange={(e) => setModel(e.target.value)}
        />
      </div>
      <div className="form-row">
        <label htmlFor="provider-base">API base URL</label>
        <input
          id="provider-base"
          className="input mono"
          placeholder="http://127.0.0.1:8080/v1"
          value={apiBase}
          onChange={(e) => setApiBase(e.target.value)}
        />
      </div>
      <div className="form-row">
        <label htmlFor="provider-key">API key</label>
        <input
          id="provider-key"
          type="password"
          className="input"
          autoComplete="off"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
        />
      </div>
      {create.isError && <div className="alert">{create.error.message}</div>}
      <button
        type="button"
        className="btn"
        disabled={!name || !model || create.isPending}
        onClick={() =>
          create.mutate(
            { name, model, api_base: apiBase, ...(apiKey ? { api_key: apiKey } : {}) },
            { onSuccess: (provider) => onCreated(provider.id) },
          )
        }
      >
        Add provider
      </button>
    </fieldset>
  );
}
