import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, useLocation } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import EditorPage from './EditorPage';
import { STARTER_MODELS, starterGraph } from './model/defaults';
import { draftKey } from './model/draft';
import { graphToDocument } from './model/graph';
import { draftGraph, readDraft, resetDrafts, writeDraft } from './store/drafts';
import { useEditorStore } from './store/editorStore';
import { useServerProgram } from './store/serverProgram';

function Where() {
  return <output aria-label="path">{useLocation().pathname}</output>;
}

function renderAt(path: string) {
  return renderRoutes(
    path,
    <>
      <Route path="/editor" element={<EditorPage />} />
      <Route path="/editor/:programId" element={<EditorPage />} />
    </>,
    <Where />,
  );
}

beforeEach(() => {
  localStorage.clear();
  resetDrafts();
  useEditorStore.setState({
    ...starterGraph(),
    dataModels: structuredClone(STARTER_MODELS),
    notice: null,
  });
  useServerProgram.setState({ programId: null, version: null, problems: [] });
});
stubApiPerTest();

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

  it('sends the optional version message typed beside Save, then clears it', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'POST /api/programs/': [201, { id: 5, name: 'my_program', latest_version: 1 }],
      'POST /api/programs/5/versions/': [201, { id: 11, number: 2 }],
      'GET /api/programs/5/versions/': [200, { count: 0, results: [] }],
    });
    renderAt('/editor');
    const message = screen.getByRole('textbox', { name: 'Version message' });
    await user.type(message, '  first draft ');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByLabelText('path')).toHaveTextContent('/editor/5'));
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ message: 'first draft' });
    expect(message).toHaveValue('');
    // Enter in the field saves too; no message is fine.
    await user.type(message, 'shorter answers{Enter}');
    await waitFor(() => expect(screen.getByText('v2')).toBeInTheDocument());
    const version = calls.find((c) => c.url === '/api/programs/5/versions/' && c.method === 'POST');
    expect(version!.body).toMatchObject({ message: 'shorter answers' });
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

  describe('drafts kept in this browser', () => {
    // Version 3 of program 7 was saved at 10:00; the draft was kept at 10:05.
    const savedAt = Date.parse('2030-01-01T10:00:00Z');
    function serveVersion3() {
      const { document: doc, layout } = graphToDocument({ ...starterGraph() });
      return mockFetch({
        'GET /api/programs/7/': [200, { id: 7, name: 'qa', description: '', latest_version: 3 }],
        'GET /api/programs/7/versions/3/': [
          200,
          { id: 30, number: 3, document: doc, layout, created_at: new Date(savedAt).toISOString() },
        ],
        'POST /api/programs/7/versions/': [201, { id: 31, number: 4 }],
        'PATCH /api/programs/7/': [200, { id: 7, name: 'qa', description: 'kept' }],
        'GET /api/programs/7/versions/': [200, { count: 0, results: [] }],
      });
    }
    function keepDraft(at: number) {
      const graph = draftGraph(starterGraph());
      graph.meta = { ...graph.meta, description: 'kept' };
      writeDraft({ programId: 7, baseVersion: 3, savedAt: at, graph });
    }

    it('offers a newer draft, restores it, and a save drops it and stores the description', async () => {
      const user = userEvent.setup();
      const calls = serveVersion3();
      keepDraft(savedAt + 5 * 60_000);
      renderAt('/editor/7');
      const prompt = await screen.findByRole('region', { name: 'Unsaved draft' });
      // The saved version is on the canvas until the person answers.
      expect(useEditorStore.getState().meta.description).toBeNull();
      await user.click(within(prompt).getByRole('button', { name: 'Restore draft' }));
      expect(screen.queryByRole('region', { name: 'Unsaved draft' })).not.toBeInTheDocument();
      expect(useEditorStore.getState().meta.description).toBe('kept');
      await user.click(screen.getByRole('button', { name: 'Save' }));
      await waitFor(() => expect(screen.getByText('v4')).toBeInTheDocument());
      // The programs list reads the Program row's description: the save sets it too.
      await waitFor(() =>
        expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ description: 'kept' }),
      );
      expect(readDraft(7)).toBeNull();
    });

    it('drops the draft on Discard', async () => {
      const user = userEvent.setup();
      serveVersion3();
      keepDraft(savedAt + 60_000);
      renderAt('/editor/7');
      await user.click(await screen.findByRole('button', { name: 'Discard' }));
      expect(localStorage.getItem(draftKey(7, 3))).toBeNull();
      expect(useEditorStore.getState().meta.description).toBeNull();
    });

    it('does not offer a draft older than the saved version', async () => {
      serveVersion3();
      keepDraft(savedAt - 60_000);
      renderAt('/editor/7');
      await waitFor(() => expect(screen.getByText('v3')).toBeInTheDocument());
      expect(screen.queryByRole('region', { name: 'Unsaved draft' })).not.toBeInTheDocument();
    });

    it('warns before the page goes with unsaved changes', async () => {
      const user = userEvent.setup();
      mockFetch({});
      renderAt('/editor');
      const leave = () => {
        const event = new Event('beforeunload', { cancelable: true });
        window.dispatchEvent(event);
        return event.defaultPrevented;
      };
      expect(leave()).toBe(false);
      await user.click(screen.getByRole('button', { name: 'Add Generator' }));
      expect(leave()).toBe(true);
      // The warning also writes the pending draft at once.
      expect(readDraft(null)?.graph.nodes).toHaveLength(3);
    });
  });

  it('sends the description typed in the editor when it creates a program', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'POST /api/programs/': [201, { id: 5, name: 'my_program', latest_version: 1 }],
      'GET /api/programs/5/versions/': [200, { count: 0, results: [] }],
    });
    useEditorStore.setState({ meta: { ...useEditorStore.getState().meta, description: 'Q&A' } });
    renderAt('/editor');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByLabelText('path')).toHaveTextContent('/editor/5'));
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ description: 'Q&A' });
  });
});
