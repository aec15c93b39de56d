import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import ProvidersPage from './ProvidersPage';

const LIST = {
  count: 2,
  next: null,
  previous: null,
  results: [
    {
      id: 1,
      name: 'local',
      kind: 'language',
      model: 'openai/scripted',
      api_base: 'http://127.0.0.1:8080/v1',
      has_api_key: false,
      dropped_params: {},
      params: {},
      is_default: true,
      created_at: '2026-01-01T00:00:00Z',
    },
    {
      id: 2,
      name: 'hosted',
      kind: 'language',
      model: 'openai/gpt-4o-mini',
      api_base: '',
      has_api_key: true,
      dropped_params: {},
      params: {},
      is_default: false,
      created_at: '2026-01-01T00:00:00Z',
    },
  ],
};
const CATALOGUE = [
  {
    model: 'ollama/mistral',
    kind: 'language',
    label: 'Mistral (Ollama)',
    needs_api_key: false,
    local: true,
  },
];

function renderPage() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <ProvidersPage />
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  document.cookie = 'csrftoken=t; path=/';
});
afterEach(() => vi.unstubAllGlobals());

describe('ProvidersPage', () => {
  it('lists providers with the default badge and key state; sets a default', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'GET /api/providers/': [200, LIST],
      'GET /api/providers/catalogue/': [200, CATALOGUE],
      'POST /api/providers/2/set-default/': [200, { ...LIST.results[1], is_default: true }],
    });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Providers' });
    await within(table).findByText('openai/gpt-4o-mini');
    const rows = within(table).getAllByRole('row');
    expect(rows[1]).toHaveTextContent('local default');
    expect(rows[2]).toHaveTextContent('stored');
    await user.click(screen.getByRole('button', { name: 'Make hosted the default' }));
    await waitFor(() =>
      expect(calls.map((c) => `${c.method} ${c.url}`)).toContain(
        'POST /api/providers/2/set-default/',
      ),
    );
  });

  it('says what the administrator would have to allow for a refused address', async () => {
    const user = userEvent.setup();
    const refusal =
      'refused by the outgoing-request policy: 10.0.0.5:8000 is a private-network address; ' +
      'an administrator would have to allow it: add 10.0.0.5:8000 to STUDIO_ALLOWED_OUTGOING';
    mockFetch({
      'GET /api/providers/': [
        200,
        { ...LIST, results: [{ ...LIST.results[1], dropped_params: { cache_dir: '/x' } }] },
      ],
      'GET /api/providers/catalogue/': [200, CATALOGUE],
      'POST /api/providers/': [400, { api_base: [refusal] }],
    });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Providers' });
    expect(await within(table).findByText(/Removed params .*cache_dir/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New provider' }));
    const form = screen.getByRole('form', { name: 'New provider' });
    await user.type(within(form).getByLabelText('Name'), 'lan');
    await user.type(within(form).getByLabelText('Model (litellm)'), 'hosted_vllm/x');
    await user.type(within(form).getByLabelText('API base URL'), 'http://10.0.0.5:8000/v1');
    await user.click(within(form).getByRole('button', { name: 'Add provider' }));
    expect(await within(form).findByText(refusal)).toBeInTheDocument();
  });

  it('fills the form from the catalogue, refuses bad params, then adds', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'GET /api/providers/': [200, LIST],
      'GET /api/providers/catalogue/': [200, CATALOGUE],
      'POST /api/providers/': [201, { ...LIST.results[0], id: 3, name: 'Mistral (Ollama)' }],
    });
    renderPage();
    await user.click(screen.getByRole('button', { name: 'New provider' }));
    const form = screen.getByRole('form', { name: 'New provider' });
    await user.selectOptions(
      await within(form).findByLabelText('From the catalogue'),
      'Mistral (Ollama) (language, local)',
    );
    expect(within(form).getByLabelText('Model (litellm)')).toHaveValue('ollama/mistral');
    expect(within(form).getByLabelText('Name')).toHaveValue('Mistral (Ollama)');
    const params = within(form).getByLabelText('Params (JSON)');
    await user.clear(params);
    await user.type(params, '[[1]');
    await user.click(within(form).getByRole('button', { name: 'Add provider' }));
    expect(within(form).getByRole('alert')).toHaveTextContent('A JSON object');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await user.clear(params);
    await user.click(within(form).getByRole('button', { name: 'Add provider' }));
    await waitFor(() =>
      expect(screen.queryByRole('form', { name: 'New provider' })).not.toBeInTheDocument(),
    );
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'Mistral (Ollama)',
      kind: 'language',
      model: 'ollama/mistral',
      api_base: '',
      params: {},
    });
  });

  it('edits without resending the stored key, and deletes after confirming', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'GET /api/providers/': [200, LIST],
      'GET /api/providers/catalogue/': [200, []],
      'PATCH /api/providers/2/': [200, LIST.results[1]],
      'DELETE /api/providers/2/': [204, undefined],
    });
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Edit hosted' }));
    const form = screen.getByRole('form', { name: 'Edit hosted' });
    await user.type(within(form).getByLabelText('Name'), ' 2');
    await user.click(within(form).getByRole('button', { name: 'Save provider' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH')).toBe(true));
    const patch = calls.find((c) => c.method === 'PATCH')!.body as Record<string, unknown>;
    expect(patch.name).toBe('hosted 2');
    expect('api_key' in patch).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Delete hosted' }));
    await user.click(screen.getByRole('button', { name: 'Confirm delete' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
  });

  it("tests a connection and shows the answer or the provider's error", async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'GET /api/providers/': [200, LIST],
      'GET /api/providers/catalogue/': [200, []],
      'POST /api/providers/1/test/': [
        200,
        { ok: true, answer: 'ok', error: null, latency_s: 0.4321 },
      ],
      'POST /api/providers/2/test/': [
        200,
        {
          ok: false,
          answer: null,
          error: 'AuthenticationError: Incorrect API key provided: ***',
          latency_s: 1.5,
        },
      ],
    });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Providers' });
    await user.click(
      await within(table).findByRole('button', { name: 'Test the connection of local' }),
    );
    expect(await within(table).findByText('Answered in 0.43 s: ok')).toHaveAttribute(
      'role',
      'status',
    );
    await user.click(within(table).getByRole('button', { name: 'Test the connection of hosted' }));
    const failed = await within(table).findByText(/^Failed after 1.50 s/);
    expect(failed).toHaveTextContent('Incorrect API key provided: ***');
    expect(failed).toHaveClass('alert');
    expect(calls.filter((c) => c.url.endsWith('/test/')).map((c) => c.url)).toEqual([
      '/api/providers/1/test/',
      '/api/providers/2/test/',
    ]);
  });
});
