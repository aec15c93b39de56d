import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { DatasetDetail } from './DatasetDetail';

afterEach(() => vi.unstubAllGlobals());

const dataset = {
  id: 4,
  name: 'capitals',
  format: 'jsonl',
  builtin_name: '',
  status: 'valid',
  row_count: 8,
  error_count: 2,
  errors: [
    { line: 3, field: 'answer', message: 'Input should be a valid number', raw: '{"answer": "x"}' },
    { line: 7, field: '', message: 'EOF while parsing', raw: '{"query": "cut' },
  ],
  errors_truncated: false,
  dropped_count: 2,
  dropped_lines: [3, 7],
  keep_valid_rows: true,
};

describe('DatasetDetail', () => {
  it('says which rows were dropped, and shows each bad row as written beside its error', async () => {
    mockFetch({
      'GET /api/datasets/4/': [200, dataset],
      'GET /api/datasets/4/preview/': [200, { rows: [] }],
    });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <DatasetDetail datasetId={4} />
      </QueryClientProvider>,
    );
    expect(await screen.findByTestId('dataset-dropped')).toHaveTextContent(
      '2 rows dropped (lines 3, 7): they do not fit the models. Training uses the 8 others.',
    );
    const errors = screen.getByRole('table', { name: 'Row errors' });
    const [, first, second] = within(errors).getAllByRole('row');
    expect(first).toHaveTextContent('Input should be a valid number');
    expect(first).toHaveTextContent('{"answer": "x"}');
    expect(second).toHaveTextContent('{"query": "cut');
  });
});
