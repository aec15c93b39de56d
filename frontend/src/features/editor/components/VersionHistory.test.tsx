import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { VersionHistory } from './VersionHistory';

const VERSIONS = {
  count: 3,
  next: null,
  previous: null,
  results: [
    { id: 13, number: 3, message: '', created_at: '2026-01-03T00:00:00Z' },
    { id: 12, number: 2, message: 'shorter answers', created_at: '2026-01-02T00:00:00Z' },
    { id: 11, number: 1, message: 'first try', created_at: '2026-01-01T00:00:00Z' },
  ],
};
const DIFF = {
  from: 1,
  to: 2,
  summary: {
    modules_added: [],
    modules_removed: [],
    modules_changed: ['answer'],
    instructions_changed: ['answer'],
    examples_changed: [],
  },
  changes: [{ path: 'variables.answer.instructions', op: 'changed', old: 'a', new: 'b' }],
};

function renderHistory() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <VersionHistory programId={5} current={3} onOpen={() => {}} onClose={() => {}} />
    </QueryClientProvider>,
  );
}

beforeAll(() => {
  // jsdom has <dialog> without showModal: open it as the browser would.
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.open = true;
  };
});
afterEach(() => vi.unstubAllGlobals());

describe('VersionHistory', () => {
  it('lists each version with its message, and names both ends of a diff', async () => {
    const user = userEvent.setup();
    mockFetch({
      'GET /api/programs/5/versions/': [200, VERSIONS],
      'GET /api/programs/5/diff/?from=2&to=3': [200, { ...DIFF, from: 2, to: 3 }],
      'GET /api/programs/5/diff/?from=1&to=2': [200, DIFF],
    });
    renderHistory();
    await screen.findByRole('cell', { name: 'shorter answers' });
    const rows = screen.getAllByRole('row');
    expect(rows[1]).toHaveTextContent('v3 (on canvas)—');
    expect(rows[2]).toHaveTextContent('v2shorter answers');
    // By default: the newest against the one before it.
    const diff = screen.getByRole('region', { name: 'Diff' });
    expect(within(diff).getByText('v2', { selector: 'dt' }).nextSibling).toHaveTextContent(
      'shorter answers',
    );
    expect(within(diff).getByText('v3', { selector: 'dt' }).nextSibling).toHaveTextContent(
      'no message',
    );
    await user.click(screen.getByRole('radio', { name: 'Diff from v1' }));
    await user.click(screen.getByRole('radio', { name: 'Diff to v2' }));
    expect(await within(diff).findByText('first try')).toBeInTheDocument();
    expect(within(diff).getByText('shorter answers')).toBeInTheDocument();
    expect(await within(diff).findByText('variables.answer.instructions')).toBeInTheDocument();
  });

  it("opens a version's prompt export from its row", async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'GET /api/programs/5/versions/': [200, VERSIONS],
      'GET /api/programs/5/diff/?from=2&to=3': [200, { ...DIFF, from: 2, to: 3 }],
      'GET /api/programs/5/versions/2/prompt/': [
        200,
        {
          input_placeholder: '{{input}}',
          generators: [
            {
              name: 'answer',
              messages: [{ role: 'system', content: 'Answer shortly.' }],
              text: '### SYSTEM\nAnswer shortly.',
              response_format: {},
              temperature: null,
            },
          ],
          python: 'import optimizer_core',
          document: {},
        },
      ],
    });
    renderHistory();
    await user.click(await screen.findByRole('button', { name: 'Export the prompt of v2' }));
    const dialog = await screen.findByRole('dialog', { name: 'Export prompt' });
    expect(await within(dialog).findByText(/Answer shortly\./)).toBeInTheDocument();
    expect(calls.some((c) => c.url === '/api/programs/5/versions/2/prompt/')).toBe(true);
  });
});
