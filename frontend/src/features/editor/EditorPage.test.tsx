import { act, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import qa from './__fixtures__/program_qa.json';
import routeTemplate from './__fixtures__/template_route_then_answer.json';
import { loadDocument } from './actions/loadDocument';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import EditorPage from './EditorPage';
import { STARTER_MODELS, starterGraph } from './model/defaults';
import { moduleName } from './model/graph';
import { resetDrafts } from './store/drafts';
import { useEditorStore } from './store/editorStore';

function renderEditor() {
  const client = new QueryClient();
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/editor']}>
        <EditorPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const names = () => useEditorStore.getState().nodes.map(moduleName);

beforeEach(() => {
  // Each test starts without the drafts an earlier one left behind.
  localStorage.clear();
  resetDrafts();
  useEditorStore.setState({
    ...starterGraph(),
    dataModels: structuredClone(STARTER_MODELS),
    notice: null,
  });
  useEditorStore.temporal.getState().clear();
});

describe('EditorPage', () => {
  it('adds a module from the palette and shows it in the inspector', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Add Chain of thought' }));
    expect(names()).toEqual(['input_layer', 'generator', 'chain_of_thought']);
    const inspector = screen.getByRole('complementary', { name: 'Inspector' });
    expect(within(inspector).getByLabelText('Module name')).toHaveValue('chain_of_thought');
    expect(within(inspector).getByLabelText('Instructions')).toHaveValue(
      'Your task is to answer with a JSON containing the following keys: ["thinking", "answer"].',
    );
  });

  it('opens the route template: a Branch with an output per label, both into the Or', () => {
    renderEditor();
    act(() => {
      useEditorStore.getState().run(loadDocument, { document: routeTemplate });
    });
    expect(names()).toEqual(['message', 'router', 'topic']);
    const branch = screen.getByLabelText(/^Branch router/);
    expect(within(branch).getByText('account')).toBeInTheDocument();
    expect(within(branch).getByText('order')).toBeInTheDocument();
    expect(branch.querySelectorAll('.react-flow__handle.source')).toHaveLength(2);
    const or = screen.getByLabelText(/^Or topic, outputs/);
    expect(within(or).getByLabelText('2 inputs')).toBeInTheDocument();
  });

  it("edits the modules a Branch holds in the inspector: a label's instructions, the decision's sampling", async () => {
    const user = userEvent.setup();
    renderEditor();
    act(() => {
      useEditorStore.getState().run(loadDocument, { document: routeTemplate });
    });
    const router = useEditorStore.getState().nodes[1]!;
    act(() => useEditorStore.getState().select([router.id]));
    const inspector = screen.getByRole('complementary', { name: 'Inspector' });
    expect(within(inspector).getByText("Label 'order': order_topic")).toBeInTheDocument();
    const instructions = within(inspector).getByLabelText('Instructions (order_topic)');
    await user.clear(instructions);
    await user.type(instructions, 'Name the order problem.');
    await user.tab();
    await user.type(
      within(inspector).getByLabelText('Temperature (router_decision)'),
      '0.2{Enter}',
    );
    await user.type(within(inspector).getByLabelText('Top p (account_topic)'), '3{Enter}');
    expect(within(inspector).getByText(/^Top p must be/)).toBeInTheDocument();
    const data = useEditorStore.getState().nodes[1]!.data;
    expect(data.kind === 'Branch' && data.variables['order_topic/state']!.instructions).toBe(
      'Name the order problem.',
    );
    expect(data.kind === 'Branch' && data.config.temperature).toBe(0.2);
    expect(data.kind === 'Branch' && data.config.branches[0]!.config.top_p).toBeNull();
  });

  it("edits a Branch's labels in the inspector; its outputs follow", async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Add Branch' }));
    const inspector = screen.getByRole('complementary', { name: 'Inspector' });
    const second = within(inspector).getByLabelText('Label 2');
    await user.clear(second);
    await user.type(second, 'maybe{Enter}');
    await user.type(within(inspector).getByLabelText('New label'), 'later{Enter}');
    const node = useEditorStore.getState().nodes.at(-1)!;
    expect(node.data.kind === 'Branch' && node.data.config.labels).toEqual([
      'yes',
      'maybe',
      'later',
    ]);
    const card = screen.getByLabelText(/^Branch branch/);
    expect(card.querySelectorAll('.react-flow__handle.source')).toHaveLength(3);
    await user.type(within(inspector).getByLabelText('New label'), 'yes{Enter}');
    expect(
      within(inspector).getByText("The label 'yes' is there twice; labels must differ."),
    ).toBeInTheDocument();
  });

  it('adds a self-critique after the Generator and turns its revision on', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Add Self-critique' }));
    const inspector = screen.getByRole('complementary', { name: 'Inspector' });
    await user.click(within(inspector).getByLabelText(/Revise the last input/));
    const node = useEditorStore.getState().nodes.at(-1)!;
    expect(node.data.kind === 'SelfCritique' && Object.keys(node.data.variables)).toEqual([
      'self_critique_critic/state',
      'self_critique_reviser/state',
    ]);
    expect(screen.getByLabelText(/^SelfCritique|^Self-critique self_critique/)).toBeInTheDocument();
  });

  it('deletes, undoes and redoes from the keyboard', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Add Generator' }));
    fireEvent.keyDown(window, { key: 'Delete' });
    expect(names()).toEqual(['input_layer', 'generator']);
    fireEvent.keyDown(window, { key: 'z', ctrlKey: true });
    expect(names()).toEqual(['input_layer', 'generator', 'generator_1']);
    fireEvent.keyDown(window, { key: 'Z', ctrlKey: true, shiftKey: true });
    expect(names()).toEqual(['input_layer', 'generator']);
    expect(screen.getByRole('button', { name: 'Redo' })).toBeDisabled();
  });

  it('copies and pastes with Ctrl+C / Ctrl+V', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Add Input' }));
    fireEvent.keyDown(window, { key: 'c', ctrlKey: true });
    fireEvent.keyDown(window, { key: 'v', ctrlKey: true });
    expect(names()).toEqual(['input_layer', 'generator', 'input_layer_1', 'input_layer_2']);
  });

  it('leaves keys typed in a field alone', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Add Generator' }));
    const name = screen.getByLabelText('Module name');
    await user.click(name);
    await user.keyboard('{Delete}{Backspace}');
    expect(names()).toHaveLength(3);
  });

  it('renames from the inspector, and shows why a name is refused', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Add Generator' }));
    const field = screen.getByLabelText('Module name');
    await user.clear(field);
    await user.type(field, 'generator{Enter}');
    expect(screen.getByRole('alert')).toHaveTextContent(
      "Another module is already named 'generator'.",
    );
    await user.clear(field);
    await user.type(field, 'summarizer{Enter}');
    expect(names()).toEqual(['input_layer', 'generator', 'summarizer']);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('edits the sampling settings, refusing one out of range beside its field', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Add Chain of thought' }));
    const inspector = screen.getByRole('complementary', { name: 'Inspector' });
    const config = () => {
      const node = useEditorStore.getState().nodes[2]!;
      if (node.data.kind !== 'ChainOfThought') throw new Error('expected a ChainOfThought');
      return node.data.config;
    };
    const topP = within(inspector).getByLabelText('Top p');
    expect(topP).toHaveValue('');
    await user.type(topP, '1.5{Enter}');
    expect(within(inspector).getByRole('alert')).toHaveTextContent(
      'Top p must be a number above 0 and at most 1',
    );
    expect(topP).toHaveAttribute('aria-invalid', 'true');
    expect(config().top_p).toBeNull();
    await user.clear(topP);
    await user.type(topP, '0.9{Enter}');
    expect(within(inspector).queryByRole('alert')).toBeNull();
    await user.type(within(inspector).getByLabelText('Max tokens'), '512{Enter}');
    await user.type(within(inspector).getByLabelText('Top k'), 'many{Enter}');
    expect(within(inspector).getByRole('alert')).toHaveTextContent('Top k must be a number.');
    await user.selectOptions(within(inspector).getByLabelText('Reasoning effort'), 'low');
    expect(config()).toMatchObject({ top_p: 0.9, max_tokens: 512, top_k: null });
    expect(config().reasoning_effort).toBe('low');
    // Empty is "not set" again.
    await user.clear(topP);
    await user.tab();
    await user.selectOptions(
      within(inspector).getByLabelText('Reasoning effort'),
      'provider default',
    );
    expect(config()).toMatchObject({ top_p: null, reasoning_effort: null, max_tokens: 512 });
  });

  it('lays the graph out with L', async () => {
    renderEditor();
    act(() => {
      useEditorStore.setState({
        nodes: useEditorStore.getState().nodes.map((n) => ({ ...n, position: { x: 0, y: 0 } })),
      });
    });
    // Elk runs asynchronously; keep the whole wait inside act so React sees the update.
    await act(async () => {
      fireEvent.keyDown(window, { key: 'l' });
      await vi.waitFor(
        () => {
          const [input, gen] = useEditorStore.getState().nodes;
          expect(input!.position.x).toBeLessThan(gen!.position.x);
        },
        { timeout: 20000 },
      );
    });
  });

  it('shows the program checks', () => {
    renderEditor();
    expect(screen.getByText('● Valid program')).toBeInTheDocument();
    act(() => {
      useEditorStore.setState({ edges: [] });
    });
    expect(screen.getByText(/2 problems/)).toBeInTheDocument();
  });

  it('opens a program file and exports it back with its layout', async () => {
    const user = userEvent.setup();
    renderEditor();
    const file = new File(
      [JSON.stringify({ ...qa, layout: { version: 1, nodes: {} } })],
      'qa.json',
      {
        type: 'application/json',
      },
    );
    await user.upload(screen.getByLabelText('Program file'), file);
    await screen.findByText('Opened qa.json.');
    expect(names()).toEqual(['input_layer', 'generator', 'chain_of_thought']);

    const blobs: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:program';
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    await user.click(screen.getByRole('button', { name: 'Export' }));
    const exported = JSON.parse(await blobs[0]!.text()) as Record<string, unknown>;
    const { layout, ...document } = exported;
    expect(document).toEqual(qa);
    expect(Object.keys((layout as { nodes: object }).nodes)).toEqual([
      'input_layer',
      'generator',
      'chain_of_thought',
    ]);
  });

  it('refuses to export a program the engine would not build, and says why', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByRole('button', { name: 'Add Generator' }));
    await user.click(screen.getByRole('button', { name: 'Export' }));
    expect(screen.getByRole('status')).toHaveTextContent(
      "Cannot export yet: Generator 'generator_1' has no input: its output cannot reach back to an Input.",
    );
  });

  it('says why a file cannot be opened', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.upload(
      screen.getByLabelText('Program file'),
      new File(['{"kind": "x"}'], 'bad.json'),
    );
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Cannot open this program: expected a \'optimizer_core.program\' document, got kind "x".',
    );
  });
});
