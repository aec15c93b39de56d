import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
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
  examples: [example('Paris', 0, 1), example('Rome', 1, 0), example('Oslo', 1, 1)],
  gain,
  versus: null,
};

function renderCompare() {
  mockFetch({
    'GET /api/runs/': [200, { count: 0, next: null, previous: null, results: [] }],
    'GET /api/runs/compare/': [200, { runs: [run], variables: {} }],
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/compare?ids=4']}>
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
    renderCompare();
    const verdict = await screen.findByRole('status', { name: '#4 capitals after vs before' });
    expect(verdict).toHaveTextContent('Significant gain');
    expect(verdict).toHaveTextContent('n = 40');

    const table = screen.getByRole('table', { name: 'Per-example results' });
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
});
