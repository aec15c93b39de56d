import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import EditorPage from './EditorPage';
import { STARTER_MODELS, starterGraph } from './model/defaults';
import { useEditorStore } from './store/editorStore';
import { useServerProgram } from './store/serverProgram';

function Where() {
  return <output aria-label="path">{useLocation().pathname}</output>;
}

function renderAt(path: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/editor" element={<EditorPage />} />
          <Route path="/editor/:programId" element={<EditorPage />} />
        </Routes>
        <Where />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  document.cookie = 'csrftoken=t; path=/';
  useEditorStore.setState({
    ...starterGraph(),
    dataModels: structuredClone(STARTER_MODELS),
    notice: null,
  });
  useServerProgram.setState({ programId: null, version: null, problems: [] });
});
afterEach(() => vi.unstubAllGlobals());

describe('EditorPage with the API', () => {
  it('shows the server refusal on the module its path names', async () => {
    const user = userEvent.setup();
    mockFetch({
      'POST /api/programs/': [
        400,
        {
          errors: [{ path: 'program.modules[1].module.config.data_model', message: 'bad schema' }],
        },
      ],
    });
    renderAt('/editor');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const node = await screen.findByLabelText(/^Generator generator,/);
    // (React Flow hides nodes from the accessibility tree until jsdom 'measures' them.)
    await waitFor(() => expect(within(node).getByText('bad schema')).toBeInTheDocument());
    expect(screen.getByText(/The server refused the program/)).toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'Server problems' })).toHaveTextContent(
      'program.modules[1].module.config.data_model: bad schema',
    );
  });

  it('saves a new program, then a new version of it', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'POST /api/programs/': [201, { id: 5, name: 'my_program', latest_version: 1 }],
      'POST /api/programs/5/versions/': [201, { id: 11, number: 2 }],
      'GET /api/programs/5/versions/': [200, { count: 0, results: [] }],
    });
    renderAt('/editor');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByLabelText('path')).toHaveTextContent('/editor/5'));
    const created = calls.find((c) => c.method === 'POST')!;
    expect(created.body).toMatchObject({ name: 'my_program', layout: { version: 1 } });
    expect((created.body as { document: { kind: string } }).document.kind).toBe(
      'optimizer_core.program',
    );
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByText('v2')).toBeInTheDocument());
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url)).toEqual([
      '/api/programs/',
      '/api/programs/5/versions/',
    ]);
  });

  it('opens a program version with its layout from the route', async () => {
    const { document: doc, layout } = await import('./model/graph').then(({ graphToDocument }) =>
      graphToDocument({ ...starterGraph() }),
    );
    mockFetch({
      'GET /api/programs/7/': [200, { id: 7, name: 'qa', latest_version: 3 }],
      'GET /api/programs/7/versions/3/': [
        200,
        {
          id: 30,
          number: 3,
          document: { ...doc, program: { ...doc.program, name: 'qa' } },
          layout,
        },
      ],
    });
    renderAt('/editor/7');
    await waitFor(() => expect(screen.getByText('v3')).toBeInTheDocument());
    expect(useEditorStore.getState().meta.name).toBe('qa');
    expect(useServerProgram.getState()).toMatchObject({ programId: 7, version: 3 });
  });
});
