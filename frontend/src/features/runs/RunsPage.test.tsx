import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import catalogue from './__fixtures__/catalogue.json';
import RunsPage from './RunsPage';

const page = (results: unknown[]) => ({
  count: results.length,
  next: null,
  previous: null,
  results,
});
const run = (id: number, over: Record<string, unknown> = {}) => ({
  id,
  name: `run ${id}`,
  program: 3,
  program_name: 'Capitals',
  program_version: 30,
  version_number: 2,
  dataset: 4,
  dataset_name: 'capitals.csv',
  provider: 1,
  optimizer: 'OMEGA',
  compile_config: {},
  fit_config: { epochs: 2 },
  state: 'succeeded',
  error: '',
  cancel_requested: false,
  parent: null,
  fork_epoch: null,
  current_epoch: 2,
  attempts: 1,
  before: null,
  after: null,
  usage: {},
  created_at: '2026-11-30T10:00:00Z',
  started_at: null,
  finished_at: null,
  heartbeat_at: null,
  ...over,
});
const PROGRAMS = page([
  {
    id: 3,
    name: 'Capitals',
    description: '',
    latest_version: 2,
    version_count: 2,
    created_at: '',
    updated_at: '',
  },
  {
    id: 5,
    name: 'Summaries',
    description: '',
    latest_version: 1,
    version_count: 1,
    created_at: '',
    updated_at: '',
  },
]);
const DATASETS = page([{ id: 4, name: 'capitals.csv' }]);

function Where() {
  const location = useLocation();
  return <output aria-label="search">{location.search}</output>;
}

function renderAt(path: string) {
  return renderRoutes(path, <Route path="/runs" element={<RunsPage />} />, <Where />);
}

stubApiPerTest();
afterEach(() => vi.useRealTimers());

const status = (id: number, state: string, epoch: number, calls: number) => ({
  id,
  state,
  progress: { epoch, epochs: 2, calls, tokens: calls * 10, cost: null },
  updated_at: '2026-11-30T10:00:00Z',
});

describe('RunsPage', () => {
  it('shows the program, dataset and optimizer of each run', async () => {
    mockFetch({
      'GET /api/runs/?page=1': [
        200,
        page([run(1), run(2, { optimizer: null, dataset_name: 'other' })]),
      ],
      'GET /api/programs/?page=1': [200, PROGRAMS],
      'GET /api/datasets/?page=1': [200, DATASETS],
      'GET /api/catalogue/': [200, catalogue],
    });
    renderAt('/runs');
    const table = await screen.findByRole('table', { name: 'Runs' });
    const rows = await within(table).findAllByRole('row');
    expect(within(rows[0]!).getByRole('button', { name: 'Optimizer' })).toBeInTheDocument();
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3));
    const [, second, first] = within(table).getAllByRole('row');
    expect(first).toHaveTextContent('Capitals v2');
    expect(first).toHaveTextContent('capitals.csv');
    expect(first).toHaveTextContent('OMEGA');
    expect(second).toHaveTextContent('other');
    expect(second).toHaveTextContent('—');
  });

  it('filters on the server by program, dataset, optimizer and state, kept in the URL', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'GET /api/runs/?page=1': [200, page([run(1), run(2)])],
      'GET /api/runs/?page=1&program=3': [200, page([run(1)])],
      'GET /api/runs/?page=1&program=3&optimizer=OMEGA': [200, page([run(1)])],
      'GET /api/runs/?page=1&program=3&optimizer=OMEGA&state=failed': [200, page([])],
      'GET /api/programs/?page=1': [200, PROGRAMS],
      'GET /api/datasets/?page=1': [200, DATASETS],
      'GET /api/catalogue/': [200, catalogue],
    });
    renderAt('/runs?page=2');
    const filters = await screen.findByRole('group', { name: 'Filters' });
    await within(filters).findByRole('option', { name: 'Summaries' });
    await user.selectOptions(within(filters).getByLabelText('Program'), 'Capitals');
    expect(screen.getByLabelText('search')).toHaveTextContent('?program=3'); // page 1 again
    await within(filters).findByRole('option', { name: 'OMEGA' });
    await user.selectOptions(within(filters).getByLabelText('Optimizer'), 'OMEGA');
    await user.selectOptions(within(filters).getByLabelText('State'), 'failed');
    expect(await screen.findByText('No run matches these filters.')).toBeInTheDocument();
    expect(calls.map((c) => c.url)).toContain(
      '/api/runs/?page=1&program=3&optimizer=OMEGA&state=failed',
    );
    await user.click(within(filters).getByRole('button', { name: 'Clear filters' }));
    expect(screen.getByLabelText('search')).toHaveTextContent('');
  });

  it('polls the light status of an active run, not the page, and fetches the page again once it ends', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const routes: Record<string, [number, unknown]> = {
      'GET /api/runs/?page=1': [
        200,
        page([run(1), run(2, { state: 'running', current_epoch: 0, usage: { calls: 3 } })]),
      ],
      'GET /api/runs/status/?ids=2': [200, [status(2, 'running', 1, 40)]],
      'GET /api/programs/?page=1': [200, PROGRAMS],
      'GET /api/datasets/?page=1': [200, DATASETS],
      'GET /api/catalogue/': [200, catalogue],
    };
    const calls = mockFetch(routes);
    const count = (url: string) => calls.filter((c) => c.url === url).length;
    renderAt('/runs');
    const table = await screen.findByRole('table', { name: 'Runs' });
    // The progress shown is the status's: epoch 1 of 2, 40 LM calls (the page said 0 and 3).
    const live = await within(table).findByText('1/2');
    expect(live.closest('tr')).toHaveTextContent('40');
    await act(() => vi.advanceTimersByTimeAsync(3000));
    await act(() => vi.advanceTimersByTimeAsync(3000));
    await waitFor(() => expect(count('/api/runs/status/?ids=2')).toBeGreaterThanOrEqual(3));
    expect(count('/api/runs/?page=1')).toBe(1);

    routes['GET /api/runs/status/?ids=2'] = [200, [status(2, 'succeeded', 2, 80)]];
    routes['GET /api/runs/?page=1'] = [
      200,
      page([
        run(1),
        run(2, {
          state: 'succeeded',
          usage: { calls: 80 },
          after: { summary: { reward: { mean: 0.75, std: 0 } } },
        }),
      ]),
    ];
    await act(() => vi.advanceTimersByTimeAsync(3000));
    await within(table).findByText('0.750'); // the figures of the page fetched again
    expect(count('/api/runs/?page=1')).toBe(2);
    const polled = count('/api/runs/status/?ids=2');
    await act(() => vi.advanceTimersByTimeAsync(9000));
    expect(count('/api/runs/status/?ids=2')).toBe(polled); // nothing active: no more polling
    expect(count('/api/runs/?page=1')).toBe(2);
  });
});
