import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { UploadForm } from './UploadForm';

function renderForm() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <UploadForm onUploaded={() => {}} />
    </QueryClientProvider>,
  );
}

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
});
