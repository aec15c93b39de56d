import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import type { Catalogue } from '@/lib/api/types';
import type { EventStream } from '@/lib/realtime/useEventStream';
import catalogueJson from './__fixtures__/catalogue.json';
import { buildView, type RunView } from './model/runView';
import RunPage from './RunPage';

// The page reads one hook for every event: here the test hands it the events.
let events: EventStream<RunView>;
vi.mock('@/lib/realtime/useEventStream', () => ({ useEventStream: () => events }));
// Charts draw on a canvas jsdom does not have: the test reads what the page hands them.
let chartProps: Record<string, unknown> = {};
vi.mock('./components/EpochCharts', () => ({
  EpochCharts: (props: Record<string, unknown>) => {
    chartProps = props;
    return null;
  },
}));

const ev = (seq: number, kind: string, payload: Record<string, unknown>) => ({
  seq,
  kind,
  payload,
});

// Five epochs of eight batches, now at the third batch of the second epoch.
const running = [
  ev(1, 'state', { state: 'running' }),
  ev(2, 'train_begin', { epochs: 5, steps: 8, initial_epoch: 0 }),
  ev(3, 'epoch_begin', { epoch: 0 }),
  ev(4, 'batch', { epoch: 0, batch: 7, steps: 8, logs: { failures: 1 } }),
  ev(5, 'epoch', { epoch: 0, logs: { reward: 0.5 } }),
  ev(6, 'usage', { calls: 64, total_tokens: 5000 }),
  ev(7, 'epoch_begin', { epoch: 1 }),
  ev(8, 'batch', { epoch: 1, batch: 0, steps: 8, logs: {} }),
  ev(9, 'batch', { epoch: 1, batch: 1, steps: 8, logs: {} }),
  ev(10, 'batch', { epoch: 1, batch: 2, steps: 8, logs: {} }),
];

const row = (state: string, cancelRequested = false) => ({
  id: 3,
  name: 'demo',
  state,
  cancel_requested: cancelRequested,
  usage: {},
});

/**
 * What a finished run's page reads besides its row: no test rows, and each trainable
 * variable before and after training (TrainedVariables reads them once the run stops).
 */
const finishedRoutes = {
  'GET /api/runs/3/examples/?page=1&page_size=50': [
    200,
    { count: 0, page: 1, page_size: 50, results: [] },
  ],
  'GET /api/runs/3/variables/': [
    200,
    {
      'answerer/state': {
        before: { instructions: 'Answer the question.', examples: [] },
        after: { instructions: 'Answer the question with the city only.', examples: [] },
      },
    },
  ],
} as Record<string, [number, unknown]>;

function show(list: typeof running, status: EventStream<RunView>['status'] = 'open') {
  events = { view: buildView(list), status, replayed: true };
}

function renderRun() {
  return renderRoutes('/runs/3', <Route path="/runs/:runId" element={<RunPage />} />);
}

stubApiPerTest();

describe('RunPage', () => {
  it('is live while running, says cancelling at once, then where the run stopped', async () => {
    const user = userEvent.setup();
    let release: () => void = () => {};
    const answered = new Promise<void>((resolve) => (release = resolve));
    mockFetch({ 'GET /api/runs/3/': [200, row('running')], ...finishedRoutes });
    // The cancel request hangs until the test lets it answer: the page must not wait for it.
    const fetchStub = globalThis.fetch;
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(String(input), init);
      if (request.method === 'POST' && request.url.endsWith('/api/runs/3/cancel/')) {
        await answered;
        return new Response(JSON.stringify(row('running', true)), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        });
      }
      return fetchStub(input, init);
    });
    show(running);
    const page = renderRun();
    await waitFor(() => expect(screen.getByText('Run #3 — demo')).toBeInTheDocument());
    expect(screen.getByText('live', { exact: true })).toBeInTheDocument();
    expect(screen.getByTestId('run-progress')).toHaveTextContent('Epoch 2 of 5, batch 3 of 8');

    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByTestId('run-state')).toHaveTextContent('cancelling');
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeDisabled();
    release();

    // The worker stops after the batch; the final state arrives as an event.
    show([
      ...running,
      ev(11, 'epoch', { epoch: 1, logs: { reward: 0.55 } }),
      ev(12, 'train_end', { logs: {}, cancelled: true }),
      ev(13, 'state', { state: 'cancelled' }),
    ]);
    page.refresh();
    expect(screen.getByTestId('run-state')).toHaveTextContent('cancelled');
    expect(screen.queryByText('live', { exact: true })).not.toBeInTheDocument();
    expect(screen.getByTestId('run-progress')).toHaveTextContent(
      'Stopped at epoch 2 of 5, batch 3 of 8',
    );
    expect(screen.queryByText(/^\d+%$/)).not.toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Training progress' })).toHaveAttribute(
      'aria-valuetext',
      'Stopped at epoch 2 of 5, batch 3 of 8',
    );
  });

  it('counts the batches trained since the last usage figures', async () => {
    mockFetch({ 'GET /api/runs/3/': [200, row('running')] });
    show(running);
    renderRun();
    const usage = await screen.findByLabelText('LM usage');
    expect(within(usage).getByTestId('usage-calls')).toHaveTextContent('64');
    expect(within(usage).getByTestId('usage-batches')).toHaveTextContent('11');
    expect(usage).toHaveTextContent('1 failed prediction');
    expect(screen.getByTestId('usage-pending')).toHaveTextContent(
      '3 batches trained since these figures',
    );
  });

  it('says which dataset version the run trained and tested on', async () => {
    mockFetch({
      'GET /api/runs/3/': [
        200,
        { ...row('succeeded'), dataset_name: 'capitals', dataset_version: 2 },
      ],
      ...finishedRoutes,
    });
    show([ev(1, 'state', { state: 'succeeded' })]);
    renderRun();
    expect(await screen.findByTestId('run-dataset')).toHaveTextContent(
      'Trained and tested on capitals, version 2.',
    );
  });

  it("says a queued run's dataset version is the newest, until the run reads it", async () => {
    mockFetch({
      'GET /api/runs/3/': [
        200,
        { ...row('queued'), dataset_name: 'capitals', dataset_version: null },
      ],
    });
    show([]);
    renderRun();
    expect(await screen.findByTestId('run-dataset')).toHaveTextContent(
      'Dataset capitals: its newest version, once the run reads it.',
    );
  });

  it('keeps a wide population inside its card, scrolling', async () => {
    mockFetch({ 'GET /api/runs/3/': [200, row('running')] });
    const id = 'generator/state#candidate-with-a-very-long-identifier-0123456789abcdef';
    show([
      ...running,
      ev(11, 'optimizer', {
        event: 'population',
        variable: 'generator/state',
        epoch: 0,
        algorithm: 'dns',
        population: [{ id, reward: 0.5, score: 0.2, parents: [id, id], operation: 'crossover' }],
      }),
    ]);
    renderRun();
    const scroller = await screen.findByRole('region', {
      name: 'generator/state population, scrollable',
    });
    expect(scroller).toHaveAttribute('tabindex', '0');
    expect(
      within(scroller).getByRole('table', { name: 'Population of generator/state' }),
    ).toHaveTextContent('crossover');
  });

  it('counts the rows of the evaluation before training, and the usage it spent', async () => {
    mockFetch({ 'GET /api/runs/3/': [200, row('running')] });
    show([
      ev(1, 'state', { state: 'running' }),
      ev(2, 'evaluation_progress', {
        phase: 'before',
        index: 0,
        evaluations: 1,
        rows_done: 23,
        rows: 60,
      }),
    ]);
    renderRun();
    expect(await screen.findByTestId('run-progress')).toHaveTextContent(
      'Evaluating before training: 23 of 60 rows',
    );
    expect(screen.getByRole('progressbar', { name: 'Evaluation progress' })).toHaveAttribute(
      'aria-valuenow',
      '38',
    );
  });

  it('updates the LM usage with every batch that carries it', async () => {
    mockFetch({ 'GET /api/runs/3/': [200, row('running')] });
    show([
      ...running,
      ev(11, 'batch', { epoch: 1, batch: 3, steps: 8, logs: {}, usage: { calls: 96 } }),
    ]);
    renderRun();
    const usage = await screen.findByLabelText('LM usage');
    expect(within(usage).getByTestId('usage-calls')).toHaveTextContent('96');
    expect(screen.queryByTestId('usage-pending')).not.toBeInTheDocument();
  });

  it("hands a fork's inherited epochs to its charts, with the parent's id", async () => {
    mockFetch({
      'GET /api/runs/3/': [
        200,
        {
          ...row('running'),
          parent: 2,
          fork_epoch: 1,
          inherited_epochs: [{ epoch: 0, run: 2, logs: { reward: 0.3 } }],
        },
      ],
    });
    show(running);
    renderRun();
    await waitFor(() => expect(chartProps.inheritedFrom).toBe(2));
    expect(chartProps.inherited).toEqual(new Map([[0, { reward: 0.3 }]]));
  });

  it("says whether a finished run's gain is real, with its interval and n", async () => {
    const gain = {
      n: 20,
      mean_before: 0.5,
      mean_after: 0.55,
      difference: 0.05,
      ci_low: -0.1,
      ci_high: 0.2,
      p_value: 0.6,
      min_detectable_difference: 0.31,
      verdict: 'no detectable change',
      target: 0.05,
      rows_needed: 785,
      sentence: 'no detectable change at n=20: ...',
    };
    mockFetch({ 'GET /api/runs/3/': [200, { ...row('succeeded'), gain }], ...finishedRoutes });
    show([ev(1, 'state', { state: 'succeeded' })]);
    renderRun();
    const verdict = await screen.findByRole('status', { name: 'After vs before, row by row' });
    expect(verdict).toHaveTextContent('No detectable change at n = 20');
    expect(verdict).toHaveTextContent('95% interval −0.100 to +0.200');
    expect(verdict).toHaveTextContent('You need about 785 rows to see a gain of 0.05.');
  });

  it("downloads the run's epochs as CSV", async () => {
    mockFetch({ 'GET /api/runs/3/': [200, row('running')] });
    show(running);
    renderRun();
    const link = await screen.findByRole('link', { name: 'Download CSV' });
    expect(link).toHaveAttribute('href', '/api/runs/3/history/csv/');
    expect(link).toHaveAttribute('download');
  });

  it('says a run stopped early, after how many epochs and why', async () => {
    mockFetch({ 'GET /api/runs/3/': [200, row('succeeded')], ...finishedRoutes });
    show([
      ...running,
      ev(11, 'epoch', { epoch: 1, logs: { reward: 0.5, val_reward: 0.5 } }),
      ev(12, 'train_end', {}),
      ev(13, 'early_stopped', {
        epoch: 1,
        epochs: 5,
        monitor: 'val_reward',
        patience: 1,
        min_delta: 0,
        best: 0.75,
        best_epoch: 0,
        restored_best: false,
      }),
      ev(14, 'state', { state: 'succeeded' }),
    ]);
    renderRun();
    expect(await screen.findByTestId('run-progress')).toHaveTextContent(
      'Trained 2 of 5 epochs — stopped early: val_reward did not improve for 1 epoch',
    );
  });

  it('shows the test rows of a finished run a page at a time, from the examples endpoint', async () => {
    const user = userEvent.setup();
    const example = (i: number) => ({
      input: { country: `country ${i}` },
      expected: { answer: `capital ${i}` },
      output: { answer: i === 0 ? 'wrong' : `capital ${i}` },
      reward: i === 0 ? 0 : 1,
      error: null,
      trace: [],
      before_reward: 0,
      after_reward: i === 0 ? 0 : 1,
    });
    const examples = (page: number, rows: number[]) => ({
      count: 60,
      page,
      page_size: 50,
      results: rows.map(example),
    });
    const calls = mockFetch({
      ...finishedRoutes,
      'GET /api/runs/3/': [200, row('succeeded')],
      'GET /api/runs/3/examples/?page=1&page_size=50': [
        200,
        examples(
          1,
          Array.from({ length: 50 }, (_, i) => i),
        ),
      ],
      'GET /api/runs/3/examples/?page=2&page_size=50': [
        200,
        examples(
          2,
          Array.from({ length: 10 }, (_, i) => 50 + i),
        ),
      ],
    });
    show([ev(1, 'state', { state: 'succeeded' })]);
    renderRun();
    const table = await screen.findByRole('table', { name: 'Test rows' });
    expect(within(table).getAllByRole('row')).toHaveLength(51);
    expect(within(table).getAllByRole('row')[1]).toHaveTextContent('{"country":"country 0"}');
    expect(screen.getByText('50 of 60 rows')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'More' }));
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(61));
    expect(screen.queryByRole('button', { name: 'More' })).not.toBeInTheDocument();
    expect(calls.filter((c) => c.url.includes('/examples/?page=2')).length).toBe(1);
  });

  it('asks for no test rows while the run trains', async () => {
    const calls = mockFetch({ 'GET /api/runs/3/': [200, row('running')] });
    show(running);
    renderRun();
    expect(await screen.findByText('The test rows come when the run ends.')).toBeInTheDocument();
    expect(calls.some((c) => c.url.includes('/examples/'))).toBe(false);
  });

  it('shows each module before and after training once the run ends, every request answered', async () => {
    const calls = mockFetch({ 'GET /api/runs/3/': [200, row('succeeded')], ...finishedRoutes });
    show([ev(1, 'state', { state: 'succeeded' })]);
    renderRun();
    const module = await screen.findByRole('region', {
      name: 'answerer/state before and after training',
    });
    expect(
      within(module).getByLabelText('instructions diff').querySelector('ins'),
    ).toHaveTextContent('with the city only.');
    expect(await screen.findByText('This run stored no test rows.')).toBeInTheDocument();
    const routes = new Set(['GET /api/runs/3/', ...Object.keys(finishedRoutes)]);
    expect(calls.map((c) => `${c.method} ${c.url}`).filter((c) => !routes.has(c))).toEqual([]);
    expect(calls.filter((c) => c.url === '/api/runs/3/variables/')).toHaveLength(1);
  });

  it('says what scored the run: a pinned code reward linking to its version, and a judge metric', async () => {
    mockFetch({
      'GET /api/runs/3/': [
        200,
        {
          ...row('running'),
          compile_config: {
            reward: {
              name: 'code_reward',
              params: { code: { id: 12, name: 'within_1pct', version: 3 } },
            },
            metrics: [
              {
                name: 'LMAsJudgeMetric',
                params: { score_type: 'Rating', criteria: 'Names the right city.' },
                provider: 4,
              },
              { name: 'ProgramAsJudgeMetric', params: {}, program: 31, provider: 4 },
            ],
          },
        },
      ],
      'GET /api/catalogue/': [200, catalogueJson as Catalogue],
      'GET /api/providers/?page=1': [
        200,
        { count: 1, next: null, previous: null, results: [{ id: 4, name: 'judge-gpt' }] },
      ],
      'GET /api/programs/?page=1': [
        200,
        { count: 1, next: null, previous: null, results: [{ id: 8, name: 'strict grader' }] },
      ],
      'GET /api/programs/8/versions/': [
        200,
        { count: 1, next: null, previous: null, results: [{ id: 31, number: 2, message: '' }] },
      ],
    });
    show(running);
    renderRun();
    const section = await screen.findByRole('region', { name: 'Scored by' });
    expect(
      within(section).getByRole('link', { name: 'Code reward within_1pct, version 3' }),
    ).toHaveAttribute('href', '/rewards/12?version=3');
    await waitFor(() => expect(section).toHaveTextContent('judged by judge-gpt'));
    expect(section).toHaveTextContent('Metric: LM as judge metric');
    expect(section).toHaveTextContent('scale: Rating 1-5');
    expect(section).toHaveTextContent('criteria: Names the right city.');
    await waitFor(() =>
      expect(section).toHaveTextContent('judge program: strict grader, version 2'),
    );
    expect(section).toHaveTextContent('on judge-gpt');
  });

  it('shows no "Scored by" when the run names no reward', async () => {
    mockFetch({ 'GET /api/runs/3/': [200, row('running')] });
    show(running);
    renderRun();
    await screen.findByText('Run #3 — demo');
    expect(screen.queryByRole('region', { name: 'Scored by' })).not.toBeInTheDocument();
  });
});
