import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, type Call } from '@/test/fetchMock';
import ComparePage from './ComparePage';

// Charts draw on a canvas jsdom does not have.
vi.mock('@/lib/charts/EChart', () => ({ EChart: () => null }));

afterEach(() => vi.unstubAllGlobals());

const example = (query: string, before: number, after: number) => ({
  input: { query },
  expected: { answer: query },
  output: { answer: after ? query : 'wrong' },
  reward: after,
  before_reward: before,
  after_reward: after,
});

const gain = {
  n: 40,
  mean_before: 0.2,
  mean_after: 0.9,
  difference: 0.7,
  ci_low: 0.55,
  ci_high: 0.85,
  p_value: 0.0001,
  min_detectable_difference: 0.2,
  verdict: 'significant gain',
  target: 0.05,
  rows_needed: 400,
  sentence: 'significant gain at n=40: ...',
};

const run = {
  id: 4,
  name: 'capitals',
  state: 'succeeded',
  dataset: 1,
  curves: { epoch: [0], reward: [0.5] },
  before: { reward: { mean: 0.2, std: 0 } },
  after: { reward: { mean: 0.9, std: 0 } },
  example_count: 3,
  gain,
  versus: null,
};

/** One page of the examples endpoint. */
const page = (rows: unknown[], number = 1, count = rows.length) => ({
  count,
  page: number,
  page_size: 500,
  results: rows,
});

const noRuns = { count: 0, next: null, previous: null, results: [] };

function renderCompare(ids = '4') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[`/compare?ids=${ids}`]}>
        <Routes>
          <Route path="/compare" element={<ComparePage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('ComparePage', () => {
  it("shows the run's verdict and filters its examples to those that got better or worse", async () => {
    const user = userEvent.setup();
    mockFetch({
      'GET /api/runs/': [200, noRuns],
      'GET /api/runs/compare/': [200, { runs: [run], variables: {} }],
      'GET /api/runs/4/examples/': [
        200,
        page([example('Paris', 0, 1), example('Rome', 1, 0), example('Oslo', 1, 1)]),
      ],
    });
    renderCompare();
    const verdict = await screen.findByRole('status', { name: '#4 capitals after vs before' });
    expect(verdict).toHaveTextContent('Significant gain');
    expect(verdict).toHaveTextContent('n = 40');

    const table = await screen.findByRole('table', { name: 'Per-example results' });
    const queries = () =>
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((row) => within(row).getAllByRole('cell')[0]!.textContent);
    expect(queries()).toHaveLength(3);

    const show = screen.getByLabelText('Show');
    await user.selectOptions(show, 'got better (vs before training)');
    expect(queries()).toEqual(['{"query":"Paris"}']);
    await user.selectOptions(show, 'got worse (vs before training)');
    expect(queries()).toEqual(['{"query":"Rome"}']);
    await user.selectOptions(show, 'all examples');
    expect(queries()).toHaveLength(3);
  });

  it('shows under each output what the reward said of it, after and before, when it said something', async () => {
    mockFetch({
      'GET /api/runs/': [200, noRuns],
      'GET /api/runs/compare/': [200, { runs: [run], variables: {} }],
      'GET /api/runs/4/examples/': [
        200,
        page([
          {
            ...example('Paris', 0, 1),
            before_feedback: "answer: expected 'Paris', got 'Lyon'",
            feedback: null,
          },
          { ...example('Rome', 1, 0), feedback: "answer: expected 'Rome', got 'wrong'" },
        ]),
      ],
    });
    renderCompare();
    const table = await screen.findByRole('table', { name: 'Per-example results' });
    const [paris, rome] = within(table).getAllByRole('row').slice(1);
    const runCell = (row: HTMLElement) => within(row).getAllByRole('cell')[2]!;
    expect(runCell(paris!)).toHaveTextContent(
      "feedback before: answer: expected 'Paris', got 'Lyon'",
    );
    expect(runCell(paris!)).not.toHaveTextContent('feedback: ');
    expect(runCell(rome!)).toHaveTextContent("feedback: answer: expected 'Rome', got 'wrong'");
  });

  it('shows no feedback when no row has any', async () => {
    mockFetch({
      'GET /api/runs/': [200, noRuns],
      'GET /api/runs/compare/': [200, { runs: [run], variables: {} }],
      'GET /api/runs/4/examples/': [200, page([example('Paris', 0, 1), example('Rome', 1, 0)])],
    });
    renderCompare();
    const table = await screen.findByRole('table', { name: 'Per-example results' });
    expect(table).not.toHaveTextContent('feedback');
  });

  it("reads each run's rows from its examples endpoint, every page at once, and pairs them by input", async () => {
    const user = userEvent.setup();
    // Run 4 stored 600 rows (two pages of 500); run 5, on the same rows, only the first 3.
    const many = Array.from({ length: 600 }, (_, i) => example(`q${i}`, 0, 1));
    const fork = { ...run, id: 5, name: 'fork', example_count: 3 };
    const calls: Call[] = mockFetch({
      'GET /api/runs/': [200, noRuns],
      'GET /api/runs/compare/': [
        200,
        { runs: [{ ...run, example_count: 600 }, fork], variables: {} },
      ],
      'GET /api/runs/4/examples/?page=1&page_size=500': [200, page(many.slice(0, 500), 1, 600)],
      'GET /api/runs/4/examples/?page=2&page_size=500': [200, page(many.slice(500), 2, 600)],
      'GET /api/runs/5/examples/?page=1&page_size=500': [
        200,
        page([example('q0', 0, 0), example('q1', 0, 1), example('q2', 1, 1)]),
      ],
    });
    // Hold run 4's second page back: the page says how far it got.
    const answer = globalThis.fetch;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.includes('/api/runs/4/examples/?page=2')) await held;
      return answer(input, init);
    });
    renderCompare('4,5');

    const progress = await screen.findByRole('status', { name: 'Test rows loading' });
    await waitFor(() => expect(progress).toHaveTextContent('loaded 503 of 603 rows'));
    expect(screen.queryByRole('table', { name: 'Per-example results' })).toBeNull();
    release();
    const table = await screen.findByRole('table', { name: 'Per-example results' });

    const examples = calls.filter((c) => c.url.includes('/examples/')).map((c) => c.url);
    expect(examples.sort()).toEqual([
      '/api/runs/4/examples/?page=1&page_size=500',
      '/api/runs/4/examples/?page=2&page_size=500',
      '/api/runs/5/examples/?page=1&page_size=500',
    ]);
    expect(calls.filter((c) => c.url.startsWith('/api/runs/compare/')).map((c) => c.url)).toEqual([
      '/api/runs/compare/?ids=4%2C5',
    ]);

    // Read the 601 rows once, from the DOM: role queries over them take seconds in jsdom.
    const texts = Array.from(table.querySelectorAll('tbody tr'), (row) =>
      Array.from(row.querySelectorAll('td'), (cell) => cell.textContent),
    );
    const cells = (query: string) => texts.find((row) => row[0] === `{"query":"${query}"}`);
    expect(table.querySelectorAll('tr')).toHaveLength(601); // the header, then each input
    expect(cells('q0')?.[2]).toContain('1.00');
    expect(cells('q0')?.[3]).toContain('0.00'); // run 5 on the same input
    expect(cells('q599')?.[3]).toBe('—'); // run 5 did not store it

    await user.selectOptions(screen.getByLabelText('Show'), 'got worse (vs #4 capitals)');
    const shown = within(table).getAllByRole('row').slice(1);
    expect(shown.map((row) => within(row).getAllByRole('cell')[0]!.textContent)).toEqual([
      '{"query":"q0"}',
    ]);
  });

  it("opens a row's traces: each run's modules on that input, the branch each took", async () => {
    const user = userEvent.setup();
    const routed = (label: string, other: string) => [
      { module: 'router', inputs: { query: 'Paris' }, outputs: [], taken: [label] },
      { module: `${label}_expert`, parent: 'router', inputs: { query: 'Paris' }, outputs: {} },
      { module: `${other}_expert`, parent: 'router', inputs: null, skipped: true },
    ];
    const fork = { ...run, id: 5, name: 'fork', example_count: 1 };
    mockFetch({
      'GET /api/runs/': [200, noRuns],
      'GET /api/runs/compare/': [
        200,
        { runs: [{ ...run, example_count: 1 }, fork], variables: {} },
      ],
      'GET /api/runs/4/examples/': [
        200,
        page([{ ...example('Paris', 0, 1), trace: routed('geo', 'math') }]),
      ],
      'GET /api/runs/5/examples/': [
        200,
        page([{ ...example('Paris', 1, 0), trace: routed('math', 'geo') }]),
      ],
    });
    renderCompare('4,5');

    await user.click(await screen.findByRole('button', { name: 'Traces of row 1' }));

    const first = screen.getByRole('region', { name: 'Trace of #4 capitals on row 1' });
    const second = screen.getByRole('region', { name: 'Trace of #5 fork on row 1' });
    expect(within(first).getAllByRole('listitem')[0]).toHaveTextContent('took: geo');
    expect(within(second).getAllByRole('listitem')[0]).toHaveTextContent('took: math');
    expect(within(second).getAllByRole('listitem')[2]).toHaveTextContent('geo_expert');
    expect(within(second).getAllByRole('listitem')[2]).toHaveTextContent('skipped');
  });
});
