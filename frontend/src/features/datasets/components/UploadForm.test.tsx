import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { UploadForm } from './UploadForm';

function renderForm() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <UploadForm onUploaded={() => {}} />
    </QueryClientProvider>,
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('UploadForm', () => {
  it('previews the first rows through the mapping before anything is sent', async () => {
    const user = userEvent.setup();
    renderForm();
    const file = new File(['question,answer\nWhat is 2+2?,4\nEmpty,\n'], 'rows.csv', {
      type: 'text/csv',
    });
    await user.upload(screen.getByLabelText('Dataset file'), file);

    // The example models: Query {query} in, Answer {answer} out; "query" has no column yet.
    const table = await screen.findByRole('table', { name: 'Preview of the mapped rows' });
    expect(within(table).getAllByRole('row')[1]).toHaveTextContent('no value for query');

    await user.selectOptions(screen.getByLabelText('query'), 'question');
    const rows = within(table).getAllByRole('row');
    expect(rows[1]).toHaveTextContent('{"query":"What is 2+2?"}');
    expect(rows[1]).toHaveTextContent('{"answer":"4"}');
    expect(rows[2]).toHaveTextContent('no value for answer');
  });

  it('checks the split settings and offers to keep the valid rows', async () => {
    const user = userEvent.setup();
    renderForm();
    await user.upload(
      screen.getByLabelText('Dataset file'),
      new File(['{"query": "q", "answer": "a"}\n'], 'rows.jsonl'),
    );
    const fraction = screen.getByLabelText('Test fraction');
    expect(fraction).toHaveValue(0.2);
    expect(screen.getByLabelText('Split seed')).toHaveValue(0);
    expect(screen.getByRole('checkbox', { name: /Keep the valid rows/ })).not.toBeChecked();
    expect(screen.getByRole('button', { name: 'Upload' })).toBeEnabled();

    await user.clear(fraction);
    await user.type(fraction, '1.5');
    expect(screen.getByText('From 0 (no test split) to 0.99.')).toBeInTheDocument();
    expect(fraction).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('button', { name: 'Upload' })).toBeDisabled();
  });

  it("offers the account's data models, then any this browser still keeps", async () => {
    const schema = (title: string, field: string) => ({
      type: 'object',
      title,
      properties: { [field]: { type: 'string', title: field } },
      required: [field],
    });
    localStorage.setItem(
      'studio.editor.dataModels.v1',
      JSON.stringify([{ name: 'Kept', class: 'studio_editor.Kept', schema: schema('Kept', 'k') }]),
    );
    mockFetch({
      'GET /api/data-models/': [
        200,
        [
          {
            id: 1,
            name: 'Question',
            class_path: '',
            schema: schema('Question', 'question'),
            created_at: '',
            updated_at: '',
          },
          {
            id: 2,
            name: 'Reply',
            class_path: '',
            schema: schema('Reply', 'reply'),
            created_at: '',
            updated_at: '',
          },
        ],
      ],
    });
    const user = userEvent.setup();
    renderForm();
    // The pickers start over once the library has arrived.
    await screen.findAllByRole('option', { name: 'Question (question)' });
    const input = screen.getByLabelText('Input model');
    expect(
      within(input)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Question (question)', 'Reply (reply)', 'Kept (k)', 'Type a schema…']);
    expect(screen.getByLabelText('Output model')).toHaveValue('Reply');
    // The mapping follows the chosen models.
    await user.upload(
      screen.getByLabelText('Dataset file'),
      new File(['question,reply\nq,r\n'], 'rows.csv'),
    );
    expect(await screen.findByLabelText('question')).toHaveValue('question');
    expect(screen.getByLabelText('reply')).toHaveValue('reply');
  });
});
