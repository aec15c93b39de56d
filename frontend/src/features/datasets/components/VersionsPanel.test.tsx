import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { stubApiPerTest } from '@/test/renderRoutes';
import { VersionsPanel } from './VersionsPanel';

stubApiPerTest();

const version = (number: number, extra: object = {}) => ({
  number,
  parent: number > 1 ? number - 1 : null,
  source: number > 1 ? 'edit' : 'upload',
  message: number > 1 ? 'fix row 2' : '',
  row_count: 3,
  train_count: 2,
  test_count: 1,
  digest: `${number}`.repeat(64),
  added: 0,
  removed: 0,
  changed: number > 1 ? 1 : 0,
  created_at: '2026-12-01T10:00:00Z',
  ...extra,
});

const rows = {
  count: 3,
  offset: 0,
  rows: [1, 2, 3].map((id) => ({
    row_id: id,
    split: id === 3 ? 'test' : 'train',
    input: { query: `q${id}` },
    output: { answer: `a${id}` },
  })),
};

function renderPanel() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <VersionsPanel datasetId={4} />
    </QueryClientProvider>,
  );
}

describe('VersionsPanel', () => {
  it("lists the versions with their counts and digests, and shows the latest one's diff", async () => {
    mockFetch({
      'GET /api/datasets/4/versions/': [200, [version(2), version(1)]],
      'GET /api/datasets/4/versions/2/rows/': [200, rows],
      'GET /api/datasets/4/versions/2/diff/': [
        200,
        {
          parent: 1,
          added: 0,
          removed: 0,
          changed: 1,
          rows: {
            added: [],
            removed: [],
            changed: [
              {
                row_id: 2,
                split: 'train',
                input: { query: 'q2' },
                output: { answer: 'fixed' },
                previous_input: { query: 'q2' },
                previous_output: { answer: 'wrong' },
                source_ref: '',
              },
            ],
          },
        },
      ],
    });
    renderPanel();
    const table = await screen.findByRole('table', { name: 'Dataset versions' });
    const [, newest, oldest] = within(table).getAllByRole('row');
    expect(newest).toHaveTextContent('v2');
    expect(newest).toHaveTextContent('+0 −0 ~1');
    expect(newest).toHaveTextContent('222222222222');
    expect(oldest).toHaveTextContent('upload');
    const diff = await screen.findByTestId('version-diff');
    expect(diff).toHaveTextContent('Version 2 against version 1: 0 added, 0 removed, 1 changed');
    expect(within(diff).getByRole('table', { name: 'Changed' })).toHaveTextContent(
      '{"answer":"wrong"}',
    );
  });

  it(
    'saves removed, edited and added rows as the next version, and shows what the server refused',
    { timeout: 30_000 },
    async () => {
      const calls = mockFetch({
        'GET /api/datasets/4/versions/': [200, [version(1)]],
        'GET /api/datasets/4/versions/1/rows/': [200, rows],
        'POST /api/datasets/4/versions/': [
          400,
          { errors: [{ path: 'add[0].output.answer', message: 'Field required' }] },
        ],
      });
      const user = userEvent.setup({ delay: null });
      renderPanel();
      await user.click(await screen.findByRole('button', { name: 'Remove row 3' }));
      await user.click(screen.getByRole('button', { name: 'Edit row 1' }));
      const form = screen.getByRole('form', { name: 'Edit row 1' });
      const [, output] = within(form).getAllByRole('textbox');
      fireEvent.change(output!, { target: { value: '{"answer": "A1"}' } });
      await user.click(within(form).getByRole('button', { name: 'Keep edit' }));
      await user.click(screen.getByRole('button', { name: 'Add a row' }));
      const added = screen.getByRole('form', { name: 'New row' });
      const [input] = within(added).getAllByRole('textbox');
      fireEvent.change(input!, { target: { value: '{"query": "q9"}' } });
      await user.selectOptions(within(added).getByRole('combobox'), 'test');
      await user.click(within(added).getByRole('button', { name: 'Add row' }));
      expect(screen.getByTestId('draft-size')).toHaveTextContent('1 to add, 1 to remove, 1 edited');
      fireEvent.change(screen.getByRole('textbox', { name: 'What changed' }), {
        target: { value: 'tidy' },
      });
      await user.click(screen.getByRole('button', { name: 'Save as a new version' }));

      expect(await screen.findByRole('alert')).toHaveTextContent(
        'add[0].output.answer: Field required',
      );
      const post = calls.find((c) => c.method === 'POST');
      expect(post?.body).toEqual({
        parent: 1,
        message: 'tidy',
        add: [{ input: { query: 'q9' }, output: {}, split: 'test' }],
        remove: [3],
        edit: [{ row_id: 1, input: { query: 'q1' }, output: { answer: 'A1' } }],
      });
    },
  );
});
