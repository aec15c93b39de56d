import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, type Call } from '@/test/fetchMock';
import DeploymentPage from '../../DeploymentPage';
import { deployment, page, prediction, target } from '../../testData';

const LIST = 'GET /api/deployments/capitals/predictions/';
const COMMON = {
  'GET /api/deployments/capitals/history/': [200, [target(11, 3)]],
  'GET /api/datasets/': [
    200,
    page([
      { id: 2, name: 'capitals', status: 'valid', row_count: 40 },
      { id: 3, name: 'broken', status: 'invalid', row_count: 0 },
    ]),
  ],
} satisfies Record<string, [number, unknown]>;

async function openTab(routes: Record<string, [number, unknown]>) {
  const table: Record<string, [number, unknown]> = {
    'GET /api/deployments/capitals/': [200, { ...deployment(), log_predictions: true }],
    ...COMMON,
    ...routes,
  };
  const calls = mockFetch(table);
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/deployments/capitals']}>
        <Routes>
          <Route path="/deployments/:name" element={<DeploymentPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  const user = userEvent.setup();
  await user.click(await screen.findByRole('tab', { name: 'Predictions' }));
  return { user, calls, table };
}

const patches = (calls: Call[]) =>
  calls.filter((c) => c.method === 'PATCH').map((c) => [c.url, c.body]);

beforeEach(() => {
  document.cookie = 'csrftoken=t; path=/';
});
afterEach(() => vi.unstubAllGlobals());

describe('Predictions tab', () => {
  it('saves the logging settings through the deployment', async () => {
    const { user, calls } = await openTab({
      [LIST]: [200, { results: [], next: null }],
      'PATCH /api/deployments/capitals/': [200, deployment()],
    });
    const form = screen.getByRole('form', { name: 'Logging' });
    expect(screen.getByTestId('log-state')).toHaveTextContent('Keeping 100% of predictions for 30');
    await user.click(within(form).getByLabelText('Keep predictions'));
    const rate = within(form).getByLabelText('Sampled (%)');
    await user.clear(rate);
    await user.type(rate, '150');
    expect(within(form).getByText('a percentage from 0 to 100')).toBeInTheDocument();
    await user.clear(rate);
    await user.type(rate, '10');
    await user.clear(within(form).getByLabelText('Kept for (days)'));
    await user.type(within(form).getByLabelText('Kept for (days)'), '7');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(patches(calls)).toHaveLength(1));
    expect(patches(calls)[0]).toEqual([
      '/api/deployments/capitals/',
      { log_predictions: false, log_sample_rate: 0.1, log_retention_days: 7 },
    ]);
  });

  it('lists rows with their figures, filters them and pages with the cursor', async () => {
    const { user, calls } = await openTab({
      [LIST]: [
        200,
        {
          results: [
            prediction(9),
            prediction(8, { failed: true, outputs: null, error: 'HTTP 500 from the provider' }),
          ],
          next: 'CUR1',
        },
      ],
      [`${LIST}?cursor=CUR1`]: [
        200,
        { results: [prediction(7, { verdict: 'right' })], next: null },
      ],
      [`${LIST}?failed=true&verdict=none`]: [200, { results: [], next: null }],
    });
    const table = await screen.findByRole('table', { name: 'Predictions' });
    const first = within(table).getAllByRole('row')[1]!;
    expect(first).toHaveTextContent('run #3');
    expect(first).toHaveTextContent('{"query":"question 9"}');
    expect(first).toHaveTextContent('{"answer":"answer 9"}');
    expect(first).toHaveTextContent('0.25 s');
    expect(first).toHaveTextContent('110');
    expect(within(table).getByText('HTTP 500 from the provider')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Older' }));
    expect(await within(table).findByText('{"query":"question 7"}')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Older' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Newer' }));
    expect(await within(table).findByText('{"query":"question 9"}')).toBeInTheDocument();

    const filters = screen.getByRole('form', { name: 'Filters' });
    await user.selectOptions(within(filters).getByLabelText('Outcome'), 'true');
    await user.selectOptions(within(filters).getByLabelText('Verdict'), 'none');
    await user.click(within(filters).getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('No prediction matches.')).toBeInTheDocument();
    expect(calls.map((c) => c.url)).toContain(
      '/api/deployments/capitals/predictions/?failed=true&verdict=none',
    );
  });

  it('opens a row for review and shows a refused correction under its field', async () => {
    const { user, calls } = await openTab({
      [LIST]: [200, { results: [prediction(9)], next: null }],
      'PATCH /api/deployments/capitals/predictions/9/': [
        400,
        { errors: [{ path: 'correction.answer', message: 'Input should be a valid string' }] },
      ],
    });
    await user.click(await screen.findByText('{"query":"question 9"}'));
    const review = screen.getByRole('region', { name: 'Prediction 9' });
    const correction = within(review).getByLabelText(/Correction/);
    expect(correction).toHaveValue('{\n  "answer": "answer 9"\n}');
    await user.clear(correction);
    await user.type(correction, '{{"answer": 3}');
    await user.type(within(review).getByLabelText('Note'), 'a number');
    await user.click(within(review).getByRole('button', { name: 'Wrong' }));
    expect(
      await within(review).findByText('answer: Input should be a valid string'),
    ).toBeInTheDocument();
    expect(correction).toHaveAttribute('aria-invalid', 'true');
    expect(patches(calls)).toEqual([
      [
        '/api/deployments/capitals/predictions/9/',
        { verdict: 'wrong', correction: { answer: 3 }, note: 'a number' },
      ],
    ]);
  });

  it('edits a correction by field where the output has plain fields, or as JSON', async () => {
    const answerSchema = {
      type: 'object',
      properties: { answer: { type: 'string' } },
      required: ['answer'],
    };
    const served = {
      ...target(11, 3),
      output_schemas: [{ name: 'generator', schema: answerSchema }],
    };
    const { user, calls } = await openTab({
      'GET /api/deployments/capitals/history/': [200, [served]],
      [LIST]: [200, { results: [prediction(9)], next: null }],
      'PATCH /api/deployments/capitals/predictions/9/': [
        400,
        {
          errors: [
            { path: 'correction.answer', message: 'String should have at most 5 characters' },
          ],
        },
      ],
    });
    await user.click(await screen.findByText('{"query":"question 9"}'));
    const review = screen.getByRole('region', { name: 'Prediction 9' });
    const answer = await within(review).findByLabelText('answer');
    expect(answer).toHaveValue('answer 9');
    await user.clear(answer);
    await user.type(answer, 'Santiago');
    await user.click(within(review).getByRole('button', { name: 'Wrong' }));
    expect(
      await within(review).findByText('String should have at most 5 characters'),
    ).toBeInTheDocument();
    expect(answer).toHaveAttribute('aria-invalid', 'true');
    expect(patches(calls)).toEqual([
      [
        '/api/deployments/capitals/predictions/9/',
        { verdict: 'wrong', correction: { answer: 'Santiago' } },
      ],
    ]);
    await user.click(within(review).getByRole('button', { name: 'Edit the correction as JSON' }));
    expect(within(review).getByLabelText(/Correction/)).toHaveValue('{\n  "answer": "Santiago"\n}');
  });

  it('goes through the unreviewed rows by keyboard, one PATCH per verdict', async () => {
    const { user, calls } = await openTab({
      [LIST]: [
        200,
        {
          results: [prediction(9), prediction(8, { verdict: 'right' }), prediction(7)],
          next: null,
        },
      ],
      'PATCH /api/deployments/capitals/predictions/9/': [200, prediction(9, { verdict: 'wrong' })],
      'PATCH /api/deployments/capitals/predictions/7/': [200, prediction(7, { verdict: 'right' })],
    });
    await user.click(await screen.findByRole('button', { name: 'Review' }));
    const status = screen.getByTestId('queue-status');
    expect(status).toHaveTextContent('Reviewing 1 of 2 (0 reviewed)');
    expect(screen.getByRole('region', { name: 'Prediction 9' })).toBeInTheDocument();

    await user.keyboard('j');
    expect(screen.getByRole('region', { name: 'Prediction 7' })).toBeInTheDocument();
    await user.keyboard('{ArrowUp}'); // k and ArrowUp go back
    await user.keyboard('w');
    await waitFor(() => expect(status).toHaveTextContent('Reviewing 2 of 2 (1 reviewed)'));
    expect(screen.getByRole('region', { name: 'Prediction 7' })).toBeInTheDocument();

    await user.keyboard('c'); // c focuses the correction; keys typed there are text
    const correction = screen.getByLabelText(/Correction/);
    expect(correction).toHaveFocus();
    await user.keyboard('r');
    expect(patches(calls)).toHaveLength(1);
    await user.keyboard('{Escape}'); // leaves the field, not the queue
    expect(correction).not.toHaveFocus();
    await user.clear(correction);
    await user.type(correction, '{{"answer": "Lima"}');
    await user.keyboard('{Escape}');
    await user.keyboard('r');
    await waitFor(() => expect(status).toHaveTextContent('Done: 2 of 2 reviewed.'));
    expect(patches(calls)).toEqual([
      ['/api/deployments/capitals/predictions/9/', { verdict: 'wrong' }],
      [
        '/api/deployments/capitals/predictions/7/',
        { verdict: 'right', correction: { answer: 'Lima' } },
      ],
    ]);
    await user.keyboard('k');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('region', { name: 'Review queue' })).toBeNull();
  });

  it('goes on with the older page once the rows shown are reviewed', async () => {
    const { user, calls } = await openTab({
      [LIST]: [200, { results: [prediction(9)], next: 'CUR1' }],
      [`${LIST}?cursor=CUR1`]: [200, { results: [prediction(5)], next: null }],
      'PATCH /api/deployments/capitals/predictions/9/': [200, prediction(9, { verdict: 'right' })],
    });
    await user.click(await screen.findByRole('button', { name: 'Review' }));
    await user.keyboard('r');
    const status = screen.getByTestId('queue-status');
    await waitFor(() => expect(status).toHaveTextContent('Done: 1 of 1 reviewed.'));
    await user.click(screen.getByRole('button', { name: 'Go on with older predictions' }));
    expect(await screen.findByRole('region', { name: 'Prediction 5' })).toBeInTheDocument();
    expect(screen.getByTestId('queue-status')).toHaveTextContent('Reviewing 1 of 1');
    expect(calls.map((c) => c.url)).toContain('/api/deployments/capitals/predictions/?cursor=CUR1');
  });

  it('adds the selected rows to a dataset and shows the new version', async () => {
    const result = {
      dataset: 2,
      dataset_name: 'capitals',
      version: {
        number: 3,
        parent: 2,
        source: 'predictions',
        message: '',
        row_count: 41,
        train_count: 33,
        test_count: 8,
        digest: 'abcdef0123456789',
        added: 1,
        removed: 0,
        changed: 0,
        created_at: '2026-01-02T10:00:00Z',
      },
      added: 1,
      skipped: { wrong_without_correction: 1 },
    };
    const routes: Record<string, [number, unknown]> = {
      [LIST]: [200, { results: [prediction(9, { verdict: 'right' }), prediction(8)], next: null }],
      'POST /api/deployments/capitals/predictions/to-dataset/': [
        400,
        { errors: [{ path: 'dataset', message: 'dataset does not match: `answer`' }] },
      ],
    };
    const { user, calls, table } = await openTab(routes);
    await user.click(await screen.findByLabelText('Select prediction 9'));
    await user.click(screen.getByLabelText('Select prediction 8'));
    const form = screen.getByRole('form', { name: 'Add to dataset' });
    await user.click(within(form).getByLabelText(/The 2 selected/));
    const picker = within(form).getByLabelText('Dataset');
    expect(within(picker).queryByText(/broken/)).toBeNull();
    await user.selectOptions(picker, '2');
    await user.selectOptions(within(form).getByLabelText('Split'), 'test');
    await user.type(within(form).getByLabelText('Message'), 'reviewed Monday');
    await user.click(within(form).getByRole('button', { name: 'Add' }));
    expect(await within(form).findByText('dataset does not match: `answer`')).toBeInTheDocument();

    table['POST /api/deployments/capitals/predictions/to-dataset/'] = [201, result];
    await user.click(within(form).getByRole('button', { name: 'Add' }));
    const shown = await within(form).findByTestId('to-dataset-result');
    expect(shown).toHaveTextContent('Version 3 of capitals: 41 rows (1 added, 1 wrong without');
    expect(within(shown).getByRole('link')).toHaveAttribute('href', '/datasets');
    const posts = calls.filter((c) => c.method === 'POST').map((c) => c.body);
    expect(posts[1]).toEqual({
      dataset: 2,
      split: 'test',
      message: 'reviewed Monday',
      ids: [9, 8],
    });

    await user.click(within(form).getByLabelText(/All reviewed/));
    await user.click(within(form).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(3));
    expect(calls.filter((c) => c.method === 'POST')[2]!.body).toEqual({
      dataset: 2,
      split: 'test',
      message: 'reviewed Monday',
      reviewed: true,
    });

    // Filtered to unreviewed rows, "all reviewed" would add nothing: it is not offered.
    const filters = screen.getByRole('form', { name: 'Filters' });
    await user.selectOptions(within(filters).getByLabelText('Verdict'), 'none');
    await user.click(within(filters).getByRole('button', { name: 'Apply' }));
    expect(
      await within(form).findByText(/The filter shows only predictions not reviewed/),
    ).toBeInTheDocument();
    expect(within(form).getByRole('button', { name: 'Add' })).toBeDisabled();
  });
});
