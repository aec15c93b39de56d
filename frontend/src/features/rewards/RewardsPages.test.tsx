import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import RewardEditorPage from './RewardEditorPage';
import RewardsPage from './RewardsPage';

// CodeMirror measures a layout jsdom does not have: a textarea stands in for the editor.
vi.mock('./components/CodeEditor', () => ({
  CodeEditor: ({
    value,
    onChange,
    label,
  }: {
    value: string;
    onChange: (v: string) => void;
    label: string;
  }) => <textarea aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} />,
}));

stubApiPerTest();

const page = (results: unknown[]) => ({
  count: results.length,
  next: null,
  previous: null,
  results,
});
const SCORER = {
  id: 7,
  name: 'within 1%',
  description: 'numbers close enough',
  kind: 'reward',
  latest_version: 2,
  version_count: 2,
  run_count: 1,
  created_at: '2026-12-01T10:00:00Z',
  updated_at: '2026-12-01T10:00:00Z',
};
const TEMPLATES = [
  { kind: 'reward', source: 'def reward(y_true, y_pred):\n    return 1.0\n' },
  { kind: 'metric', source: 'def metric(y_true, y_pred):\n    return 3.0\n' },
];
const V2 = {
  id: 12,
  scorer: 7,
  number: 2,
  source: 'def reward(y_true, y_pred):\n    return 0.5\n',
  message: 'half',
  created_at: '2026-12-01T10:00:00Z',
  created_by: 'ada',
};
const DATASETS = page([{ id: 4, name: 'capitals', status: 'valid' }]);

describe('RewardsPage', () => {
  it('lists the code rewards and creates one from the template', async () => {
    const calls = mockFetch({
      'GET /api/scorers/': [200, page([SCORER])],
      'GET /api/scorers/templates/': [200, TEMPLATES],
      'POST /api/scorers/': [201, { ...SCORER, id: 8, name: 'words', kind: 'metric' }],
    });
    renderRoutes('/rewards', <Route path="/rewards" element={<RewardsPage />} />);
    const table = await screen.findByRole('table', { name: 'Rewards' });
    expect(within(table).getByRole('link', { name: 'within 1%' })).toHaveAttribute(
      'href',
      '/rewards/7',
    );
    expect(within(table).getByRole('link', { name: 'Export' })).toHaveAttribute(
      'href',
      '/api/scorers/7/export/',
    );
    await userEvent.type(screen.getByLabelText('Name'), 'words');
    await userEvent.selectOptions(screen.getByLabelText('Kind'), 'metric');
    await userEvent.click(screen.getByRole('button', { name: 'Create from the template' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const created = calls.find((c) => c.method === 'POST');
    expect(created?.body).toMatchObject({
      name: 'words',
      kind: 'metric',
      source: TEMPLATES[1]!.source,
    });
  });

  it('shows the name the server refused', async () => {
    mockFetch({
      'GET /api/scorers/': [200, page([])],
      'GET /api/scorers/templates/': [200, TEMPLATES],
      'POST /api/scorers/': [400, { errors: [{ path: 'name', message: 'you already have one' }] }],
    });
    renderRoutes('/rewards', <Route path="/rewards" element={<RewardsPage />} />);
    await screen.findByText(/No code reward yet/);
    await userEvent.type(screen.getByLabelText('Name'), 'x');
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Create from the template' })).toBeEnabled(),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Create from the template' }));
    expect(await screen.findByText('you already have one')).toBeInTheDocument();
  });
});

describe('RewardEditorPage', () => {
  const routes = <Route path="/rewards/:scorerId" element={<RewardEditorPage />} />;
  const base = {
    'GET /api/scorers/7/': [200, SCORER],
    'GET /api/scorers/7/versions/': [
      200,
      page([
        { id: 12, number: 2, message: 'half', created_at: V2.created_at, created_by: 'ada' },
        { id: 11, number: 1, message: 'first', created_at: V2.created_at, created_by: 'ada' },
      ]),
    ],
    'GET /api/scorers/7/versions/2/': [200, V2],
    'GET /api/datasets/': [200, DATASETS],
    'GET /api/datasets/4/versions/': [200, []],
  } as Record<string, [number, unknown]>;

  it('opens the version a link asks for (?version=N), an older one', async () => {
    const V1 = {
      ...V2,
      id: 11,
      number: 1,
      source: 'def reward(y_true, y_pred):\n    return 0.0\n',
    };
    mockFetch({ ...base, 'GET /api/scorers/7/versions/1/': [200, V1] });
    renderRoutes('/rewards/7?version=1', routes);
    const editor = await screen.findByLabelText('Source');
    await waitFor(() => expect(editor).toHaveValue(V1.source));
    expect(
      screen.getByRole('heading', { name: /Reward · version 1 \(an older one\)/ }),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'v1' })).toHaveAttribute('aria-current', 'true');
  });

  it('shows the newest version and its history, and saves an edit with its message', async () => {
    const calls = mockFetch({
      ...base,
      'POST /api/scorers/7/versions/': [201, { ...V2, number: 3, source: 'x', message: 'tuned' }],
    });
    renderRoutes('/rewards/7', routes);
    const editor = await screen.findByLabelText('Source');
    await waitFor(() => expect(editor).toHaveValue(V2.source));
    const history = screen.getByRole('region', { name: 'Versions' });
    expect(within(history).getByText('first')).toBeInTheDocument();
    const save = screen.getByRole('button', { name: 'Save as a new version' });
    expect(save).toBeDisabled(); // nothing edited yet
    await userEvent.clear(editor);
    await userEvent.type(editor, 'def reward(a, b):{enter}    return 0.75');
    await userEvent.type(screen.getByLabelText('Message'), 'tuned');
    await userEvent.click(save);
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      source: 'def reward(a, b):\n    return 0.75',
      message: 'tuned',
    });
  });

  it('shows why the sandbox refused the code', async () => {
    mockFetch({
      ...base,
      'POST /api/scorers/7/versions/': [
        400,
        { errors: [{ path: 'source', message: "SyntaxError: expected ':' (line 1)" }] },
      ],
    });
    renderRoutes('/rewards/7', routes);
    const editor = await screen.findByLabelText('Source');
    await waitFor(() => expect(editor).toHaveValue(V2.source));
    await userEvent.type(editor, 'def broken(');
    await userEvent.click(screen.getByRole('button', { name: 'Save as a new version' }));
    expect(await screen.findByText("SyntaxError: expected ':' (line 1)")).toBeInTheDocument();
  });

  it('tries the version on dataset rows and shows each score, feedback, error and print', async () => {
    const calls = mockFetch({
      ...base,
      'POST /api/scorers/7/try/': [
        200,
        {
          version: 2,
          mean_score: 0.5,
          failed: 1,
          elapsed_s: 0.2,
          rows: [
            {
              index: 0,
              y_true: { answer: 'Paris' },
              y_pred: { answer: 'Paris' },
              score: 1,
              feedback: null,
              error: null,
              output: 'checked',
            },
            {
              index: 1,
              y_true: { answer: 'Rome' },
              y_pred: { answer: 'Lyon' },
              score: 0,
              feedback: 'expected Rome, got Lyon',
              error: null,
              output: '',
            },
            {
              index: 2,
              y_true: { answer: 'Oslo' },
              y_pred: {},
              score: 0,
              feedback: null,
              error: "KeyError: 'answer' (line 2)",
              output: '',
            },
          ],
        },
      ],
    });
    renderRoutes('/rewards/7', routes);
    const pane = await screen.findByRole('region', { name: 'Try it' });
    await within(pane).findByRole('option', { name: 'capitals' });
    await userEvent.selectOptions(within(pane).getByLabelText('Dataset'), '4');
    await userEvent.type(within(pane).getByLabelText('Rows'), '0-2');
    await userEvent.click(within(pane).getByRole('button', { name: 'Run on these rows' }));
    const table = await within(pane).findByRole('table', { name: 'Scored rows' });
    expect(calls.find((c) => c.url === '/api/scorers/7/try/')?.body).toEqual({
      dataset: 4,
      rows: [0, 1, 2],
      limit: 5,
      version: 2,
    });
    expect(within(table).getByText('expected Rome, got Lyon')).toBeInTheDocument();
    expect(within(table).getByText("KeyError: 'answer' (line 2)")).toBeInTheDocument();
    expect(within(table).getByText('checked')).toBeInTheDocument();
    expect(within(pane).getByLabelText('Try summary')).toHaveTextContent(
      'Mean score 0.500, 1 failed',
    );
  });
});
