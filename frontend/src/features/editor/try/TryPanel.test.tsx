import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import EditorPage from '../EditorPage';
import { STARTER_MODELS, starterGraph } from '../model/defaults';
import { useEditorStore } from '../store/editorStore';
import { useServerProgram } from '../store/serverProgram';
import { useTryTrace } from '../store/tryTrace';

function renderEditor() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/editor']}>
        <Routes>
          <Route path="/editor" element={<EditorPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const PROVIDERS = {
  count: 2,
  next: null,
  previous: null,
  results: [
    { id: 1, name: 'local', kind: 'language', model: 'openai/a', is_default: false },
    { id: 2, name: 'hosted', kind: 'language', model: 'openai/b', is_default: true },
  ],
};

const RESULT = {
  output: { answer: 'Paris' },
  trace: [
    {
      module: 'generator',
      inputs: { query: 'Capital of France?' },
      outputs: { answer: 'Paris' },
      error: null,
    },
    {
      module: 'input_layer',
      inputs: { query: 'Capital of France?' },
      outputs: { query: 'Capital of France?' },
      error: null,
    },
  ],
  latency_s: 0.4231,
  usage: { calls: 1, total_tokens: 57 },
};

beforeEach(() => {
  document.cookie = 'csrftoken=t; path=/';
  useEditorStore.setState({
    ...starterGraph(),
    dataModels: structuredClone(STARTER_MODELS),
    notice: null,
  });
  useServerProgram.setState({ programId: null, version: null, problems: [] });
  useTryTrace.setState({ status: {}, focused: null });
});
afterEach(() => vi.unstubAllGlobals());

describe('Try it', () => {
  it('asks to save a new program first', async () => {
    const user = userEvent.setup();
    mockFetch({ 'GET /api/providers/': [200, PROVIDERS] });
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Try it' }));
    expect(screen.getByRole('note')).toHaveTextContent('Save the program first');
    expect(screen.queryByRole('button', { name: 'Run' })).not.toBeInTheDocument();
  });

  it('sends the unsaved document with the default provider and shows each module', async () => {
    const user = userEvent.setup();
    useServerProgram.setState({ programId: 5, version: 1, problems: [] });
    // An unsaved edit: the program is renamed on the canvas only.
    useEditorStore.setState({ meta: { ...useEditorStore.getState().meta, name: 'edited' } });
    const calls = mockFetch({
      'GET /api/providers/': [200, PROVIDERS],
      'POST /api/programs/5/try/': [200, RESULT],
    });
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Try it' }));
    const panel = screen.getByRole('complementary', { name: 'Try it' });
    await waitFor(() =>
      expect(within(panel).getByLabelText('Try provider')).toHaveDisplayValue('hosted (default)'),
    );
    await user.click(within(panel).getByRole('button', { name: 'Run' }));
    expect(within(panel).getByRole('alert')).toHaveTextContent('query: required');
    await user.type(within(panel).getByLabelText('query'), 'Capital of France?');
    await user.click(within(panel).getByRole('button', { name: 'Run' }));

    const input = await within(panel).findByRole('region', { name: 'Trace input_layer' });
    const generator = within(panel).getByRole('region', { name: 'Trace generator' });
    // Graph order: the Input before the Generator, whatever order the trace came in.
    expect(
      input.compareDocumentPosition(generator) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();
    expect(generator).toHaveTextContent('"answer": "Paris"');
    expect(within(panel).getByTestId('try-stats')).toHaveTextContent('0.42 s · 57 tokens');

    const sent = calls.find((c) => c.method === 'POST')!;
    expect(sent.body).toMatchObject({
      input: { query: 'Capital of France?' },
      provider: 2,
      document: { program: { name: 'edited' } },
    });
    // The canvas marks the modules that ran, and the one whose trace is in focus.
    const node = screen.getByLabelText(/^Generator generator,/);
    expect(node).toHaveAttribute('data-try', 'ok');
    await user.hover(generator);
    await waitFor(() => expect(useTryTrace.getState().focused).toBe('generator'));
  });

  it('shows a module error and the server refusal', async () => {
    const user = userEvent.setup();
    useServerProgram.setState({ programId: 5, version: 1, problems: [] });
    mockFetch({
      'GET /api/providers/': [200, PROVIDERS],
      'POST /api/programs/5/try/': [
        200,
        {
          ...RESULT,
          output: null,
          trace: [{ ...RESULT.trace[0], outputs: null, error: 'the model answered nothing' }],
        },
      ],
    });
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Try it' }));
    const panel = screen.getByRole('complementary', { name: 'Try it' });
    await user.type(within(panel).getByLabelText('query'), 'x');
    await user.click(within(panel).getByRole('button', { name: 'Run' }));
    const generator = await within(panel).findByRole('region', { name: 'Trace generator' });
    expect(within(generator).getByRole('alert')).toHaveTextContent('the model answered nothing');
    expect(screen.getByLabelText(/^Generator generator,/)).toHaveAttribute('data-try', 'error');
  });
});
