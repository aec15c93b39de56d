import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import type { EventStream } from '@/lib/realtime/useEventStream';
import { emptyProgress, type BatchProgress } from './model/batchProgress';
import DeploymentPage from './DeploymentPage';
import { deployment, page, run, target, USAGE } from './testData';

// The batch rows read one hook for their live progress: here the test hands it.
let live: EventStream<BatchProgress> = { view: emptyProgress(), status: 'open', replayed: true };
vi.mock('@/lib/realtime/useEventStream', () => ({ useEventStream: () => live }));

const USAGE_DETAIL = {
  totals: USAGE,
  api: USAGE,
  batch: { ...USAGE, predictions: 0, cost: 0 },
  days: [
    {
      day: '2026-01-01',
      source: 'api',
      requests: 2,
      predictions: 7,
      failures: 0,
      lm_calls: 7,
      prompt_tokens: 700,
      completion_tokens: 70,
      cost: 0.0012,
      latency_s: 0.7,
    },
  ],
};

function renderPage() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/deployments/capitals']}>
        <Routes>
          <Route path="/deployments/:name" element={<DeploymentPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const COMMON = {
  'GET /api/deployments/capitals/usage/': [200, USAGE_DETAIL],
  'GET /api/deployments/capitals/history/': [200, [target(11, 3)]],
  'GET /api/runs/': [200, page([run(3), run(4)])],
  'GET /api/programs/': [200, page([])],
} satisfies Record<string, [number, unknown]>;

beforeEach(() => {
  document.cookie = 'csrftoken=t; path=/';
  live = { view: emptyProgress(), status: 'open', replayed: true };
});
afterEach(() => vi.unstubAllGlobals());

describe('DeploymentPage', () => {
  it('shows usage and history, switches to another run, then rolls back', async () => {
    const user = userEvent.setup();
    const switched = deployment(target(12, 4, 'switch'), target(11, 3));
    const rolledBack = deployment(target(13, 3, 'rollback'), target(12, 4));
    const routes: Record<string, [number, unknown]> = {
      ...COMMON,
      'GET /api/deployments/capitals/': [200, deployment()],
      'POST /api/deployments/capitals/switch/': [200, switched],
      'POST /api/deployments/capitals/rollback/': [200, rolledBack],
    };
    const calls = mockFetch(routes);
    renderPage();
    expect(await screen.findByTestId('serving')).toHaveTextContent('run #3');
    expect(await screen.findByTestId('usage-predictions')).toHaveTextContent('7');
    expect(screen.getByRole('button', { name: 'Roll back' })).toBeDisabled();
    const history = await screen.findByRole('table', { name: 'History' });
    expect(within(history).getByText('serving')).toBeInTheDocument();

    const form = screen.getByRole('form', { name: 'Switch' });
    await user.selectOptions(await within(form).findByLabelText('Run'), '4');
    routes['GET /api/deployments/capitals/'] = [200, switched];
    await user.click(within(form).getByRole('button', { name: 'Switch' }));
    await waitFor(() => expect(screen.getByTestId('serving')).toHaveTextContent('run #4'));
    expect(screen.getByTestId('previous')).toHaveTextContent('run #3');
    expect(calls.find((c) => c.url.endsWith('/switch/'))?.body).toEqual({ run: 4 });

    routes['GET /api/deployments/capitals/'] = [200, rolledBack];
    await user.click(screen.getByRole('button', { name: 'Roll back' }));
    await waitFor(() => expect(screen.getByTestId('serving')).toHaveTextContent('run #3'));
    expect(screen.getByTestId('previous')).toHaveTextContent('run #4');
  });

  it('shows the largest input it takes and lets its owner change it', async () => {
    const user = userEvent.setup();
    const routes: Record<string, [number, unknown]> = {
      ...COMMON,
      'GET /api/deployments/capitals/': [200, deployment()],
      'PATCH /api/deployments/capitals/': [200, { ...deployment(), max_input_bytes: 524288 }],
    };
    const calls = mockFetch(routes);
    renderPage();
    expect(await screen.findByTestId('input-limit')).toHaveTextContent('Largest input: 256 kB.');
    const form = screen.getByRole('form', { name: 'Limits' });
    const field = within(form).getByLabelText('Largest input (kB)');
    expect(field).toHaveValue('256');
    const save = within(form).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled(); // nothing changed yet
    await user.clear(field);
    await user.type(field, '5000');
    expect(within(form).getByText('a whole number of kB from 1 to 4096')).toBeInTheDocument();
    expect(save).toBeDisabled();
    await user.clear(field);
    await user.type(field, '512');
    routes['GET /api/deployments/capitals/'] = [200, { ...deployment(), max_input_bytes: 524288 }];
    await user.click(save);
    await waitFor(() =>
      expect(screen.getByTestId('input-limit')).toHaveTextContent('Largest input: 512 kB.'),
    );
    expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ max_input_bytes: 524288 });
  });

  it('"Use it" shows the real URL, the input schema and curl / Python snippets', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      ...COMMON,
      'GET /api/deployments/capitals/': [200, deployment()],
      'POST /api/deployments/capitals/predict/': [
        400,
        { errors: [{ path: 'input.query', message: 'Input should be a valid string' }] },
      ],
    });
    renderPage();
    await user.click(await screen.findByRole('tab', { name: 'Use it' }));
    const url = 'http://studio.test/api/deployments/capitals/predict/';
    expect(screen.getByTestId('predict-url')).toHaveTextContent(`POST ${url}`);
    expect(screen.getByTestId('input-schema')).toHaveTextContent('"required": [');
    const curl = screen.getByLabelText('curl snippet');
    expect(curl).toHaveTextContent(`curl -X POST '${url}'`);
    expect(curl).toHaveTextContent('{"input":{"query":"Query…"}}');
    expect(screen.getByLabelText('Python snippet')).toHaveTextContent('requests.post(');

    // Editing the example input changes the snippets; a bad field comes back with its path.
    const input = screen.getByLabelText('Input');
    await user.clear(input);
    await user.click(input);
    await user.paste('{"query": 3}');
    expect(screen.getByLabelText('curl snippet')).toHaveTextContent('{"input":{"query":3}}');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'input.query: Input should be a valid string',
    );
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ input: { query: 3 } });
  });

  it('starts a batch prediction and shows its live progress, then the downloads', async () => {
    const user = userEvent.setup();
    const job = (state: string, processed: number) => ({
      id: 9,
      deployment: 'capitals',
      target: 11,
      dataset: 2,
      dataset_name: 'capitals',
      split: 'all',
      state,
      error: '',
      total: 40,
      processed,
      failures: 0,
      usage: {},
      csv_url: '/api/deployments/capitals/batches/9/results/csv/',
      jsonl_url: '/api/deployments/capitals/batches/9/results/jsonl/',
      created_at: '2026-01-01T00:00:00Z',
      started_at: null,
      finished_at: null,
    });
    const calls = mockFetch({
      ...COMMON,
      'GET /api/deployments/capitals/': [200, deployment()],
      'GET /api/datasets/': [
        200,
        page([
          { id: 2, name: 'capitals', status: 'valid', row_count: 40 },
          { id: 3, name: 'broken', status: 'invalid', row_count: 0 },
        ]),
      ],
      'GET /api/deployments/capitals/batches/': [200, page([job('running', 0)])],
      'POST /api/deployments/capitals/batches/': [201, job('queued', 0)],
    });
    live = {
      status: 'open',
      replayed: true,
      view: { ...emptyProgress(), state: 'running', processed: 16, total: 40 },
    };
    const view = renderPage();
    await user.click(await screen.findByRole('tab', { name: 'Batch' }));
    const bar = await screen.findByRole('progressbar', { name: 'Batch 9 progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '16');
    expect(screen.getByText('16 / 40 rows')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'CSV' })).toBeNull();

    const dataset = screen.getByLabelText('Dataset');
    expect(within(dataset).queryByText(/broken/)).toBeNull();
    await user.selectOptions(dataset, '2');
    await user.selectOptions(screen.getByLabelText('Rows'), 'test');
    await user.click(screen.getByRole('button', { name: 'Start' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ dataset: 2, split: 'test' });

    view.unmount();
    mockFetch({
      ...COMMON,
      'GET /api/deployments/capitals/': [200, deployment()],
      'GET /api/datasets/': [200, page([])],
      'GET /api/deployments/capitals/batches/': [200, page([job('succeeded', 40)])],
    });
    renderPage();
    await user.click(await screen.findByRole('tab', { name: 'Batch' }));
    expect(await screen.findByRole('link', { name: 'CSV' })).toHaveAttribute(
      'href',
      '/api/deployments/capitals/batches/9/results/csv/',
    );
    expect(screen.getByRole('link', { name: 'JSONL' })).toBeInTheDocument();
    expect(screen.getByText('40 / 40 rows')).toBeInTheDocument();
  });
});
