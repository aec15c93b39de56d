import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { Catalogue, CatalogueEntry } from '@/lib/api/types';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import catalogueJson from './__fixtures__/catalogue.json';
import { unmeasured } from './__fixtures__/throughput';
import NewRunPage from './NewRunPage';

/** What GET /api/catalogue/ answers for the engine's built-ins (see make_fixtures.py). */
const CATALOGUE = catalogueJson as Catalogue;

const page = <T,>(results: T[]) => ({ count: results.length, next: null, previous: null, results });

const ROUTES: Record<string, [number, unknown]> = {
  'GET /api/programs/': [200, page([{ id: 1, name: 'qa' }])],
  'GET /api/programs/1/versions/': [
    200,
    page([
      { id: 11, number: 2, message: 'better' },
      { id: 10, number: 1, message: '' },
    ]),
  ],
  'GET /api/programs/1/versions/2/': [
    200,
    {
      id: 11,
      number: 2,
      document: {
        program: {
          modules: [{ module: { class_name: 'Input' } }, { module: { class_name: 'Generator' } }],
        },
        variables: { generator: {} },
      },
    },
  ],
  'GET /api/datasets/': [
    200,
    page([
      {
        id: 5,
        name: 'capitals',
        status: 'valid',
        row_count: 40,
        latest_row_count: 40,
        test_fraction: 0.25,
        output_schema: { properties: { answer: {}, reason: {} } },
      },
      {
        id: 6,
        name: 'draft',
        status: 'invalid',
        row_count: 3,
        latest_row_count: 3,
        test_fraction: 0.25,
      },
    ]),
  ],
  'GET /api/datasets/5/versions/': [
    200,
    [{ number: 1, parent: null, message: '', row_count: 40, digest: 'a' }],
  ],
  'GET /api/providers/': [
    200,
    page([
      { id: 1, name: 'local', kind: 'language', model: 'openai/scripted', is_default: true },
      { id: 2, name: 'minilm', kind: 'embedding', model: 'local/minilm', is_default: false },
    ]),
  ],
  'GET /api/providers/catalogue/': [200, []],
  'GET /api/catalogue/': [200, CATALOGUE],
};

function renderPage() {
  return renderRoutes(
    '/runs/new',
    <>
      <Route path="/runs/new" element={<NewRunPage />} />
      <Route path="/runs/:id" element={<p>run page</p>} />
    </>,
  );
}

stubApiPerTest();

describe('NewRunPage', () => {
  it('starts a run from the chosen reward, metrics, optimizer and fit settings', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({ ...ROUTES, 'POST /api/runs/': [201, { id: 9 }] });
    renderPage();
    // By text, not role: a role query over the whole form is slow enough to time out on a
    // loaded machine.
    expect(await screen.findByText('v2 — better', { selector: 'option' })).toBeInTheDocument();
    expect(
      await screen.findByText('capitals (40 rows)', { selector: 'option' }),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Provider', { selector: 'select' })).toHaveTextContent(
      'local (openai/scripted)',
    );
    expect(await screen.findByTestId('estimate-total')).toHaveTextContent('≈');
    // 40 rows, a quarter for testing: what 10 test rows can tell, and what 0.05 needs.
    expect(screen.getByTestId('estimate-detectable')).toHaveTextContent(
      'With 10 test rows, only a gain of about 0.44 would be detectable; about 785 rows are needed to see a gain of 0.05.',
    );

    await user.type(screen.getByLabelText('Run name'), 'first');
    expect(screen.getByLabelText('Reward')).toHaveDisplayValue('Exact match');
    await user.selectOptions(screen.getByLabelText('Reward'), 'LMAsJudge');
    await user.type(screen.getByLabelText('Criteria'), 'same city');
    // The judge's scale and the metric's average come from their declared settings.
    expect(screen.getByLabelText('Score scale')).toHaveDisplayValue('Score 0-1 in tenths');
    await user.selectOptions(screen.getByLabelText('Score scale'), 'Rating');
    await user.click(
      within(screen.getByRole('group', { name: 'in_mask' })).getByLabelText('answer'),
    );
    await user.click(
      within(screen.getByRole('group', { name: 'Metrics' })).getByLabelText('F1 score'),
    );
    await user.selectOptions(screen.getByLabelText('Average'), 'macro');

    // Each optimizer keeps its own settings while the other is shown.
    await user.clear(screen.getByLabelText('Population size'));
    await user.type(screen.getByLabelText('Population size'), '12');
    await user.selectOptions(screen.getByLabelText('Optimizer', { selector: 'select' }), 'OMEGA');
    expect(screen.getByLabelText('Population size')).toHaveValue('10');
    await user.selectOptions(
      screen.getByLabelText('Optimizer', { selector: 'select' }),
      'RandomFewShot',
    );
    expect(screen.getByLabelText('Population size')).toHaveValue('12');
    await user.selectOptions(screen.getByLabelText('Optimizer', { selector: 'select' }), 'OMEGA');
    await user.selectOptions(screen.getByLabelText('Algorithm'), 'ga');

    await user.clear(screen.getByLabelText('Epochs'));
    await user.type(screen.getByLabelText('Epochs'), '0');
    expect(screen.getByLabelText('Epochs')).toHaveAccessibleDescription('must be ≥ 1');
    expect(screen.getByRole('button', { name: 'Start run' })).toBeDisabled();
    expect(screen.queryByTestId('estimate-total')).toBeNull();
    await user.clear(screen.getByLabelText('Epochs'));
    await user.type(screen.getByLabelText('Epochs'), '3');
    // A cap on calls below the estimate: the form says the run will stop early.
    expect(screen.getByLabelText('Max LM calls')).toHaveAttribute('placeholder', 'none');
    await user.type(screen.getByLabelText('Max LM calls'), '5');
    expect(screen.getByTestId('estimate-cap-calls')).toHaveTextContent(
      /^estimated [\d,]+ calls — over your cap of 5: the run will stop early and keep its best program$/,
    );

    await user.click(screen.getByRole('button', { name: 'Start run' }));
    expect(await screen.findByText('run page')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'first',
      program_version: 11,
      dataset: 5,
      dataset_version: 1,
      provider: 1,
      compile_config: {
        reward: {
          name: 'LMAsJudge',
          params: { score_type: 'Rating', in_mask: ['answer'], criteria: 'same city' },
        },
        metrics: [{ name: 'F1Score', params: { average: 'macro', in_mask: ['answer'] } }],
        optimizer: {
          name: 'OMEGA',
          params: {
            algorithm: 'ga',
            selection: 'softmax',
            prompts: 'auto',
            population_size: 10,
            k_nearest_fitter: 5,
            mutation_temperature: 0.3,
            crossover_temperature: 0.3,
            selection_temperature: 0.3,
            sampling_temperature: 0.3,
            merging_rate: 0.02,
            few_shot_learning: false,
            // The catalogue's default (0145326: OMEGA passes it to its few-shot sampling).
            labelled_examples: true,
            nb_min_examples: 1,
            nb_max_examples: 3,
            // The catalogue's default: the worst rows' feedback in the mutation prompt.
            use_feedback: true,
          },
        },
      },
      fit_config: {
        epochs: 3,
        batch_size: 8,
        validation_split: 0,
        evaluation_temperature: 0,
        evaluations: 1,
        shuffle: true,
        max_calls: 5,
        cache: true,
      },
    });
  });

  it("trains on the dataset's newest version unless another is picked", async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      ...ROUTES,
      // Newest first: version 2 added 8 reviewed predictions to the upload's 40 rows.
      'GET /api/datasets/5/versions/': [
        200,
        [
          { number: 2, parent: 1, message: 'reviewed predictions', row_count: 48, digest: 'b' },
          { number: 1, parent: null, message: '', row_count: 40, digest: 'a' },
        ],
      ],
      'POST /api/runs/': [201, { id: 9 }],
    });
    renderPage();
    const picker = screen.getByLabelText('Dataset version', { selector: 'select' });
    await waitFor(() => expect(picker).toHaveDisplayValue('v2 — reviewed predictions (48 rows)'));
    // The estimate counts the version's rows: a quarter of 48 for testing.
    expect(await screen.findByTestId('estimate-detectable')).toHaveTextContent('With 12 test rows');

    await user.selectOptions(picker, 'v1 (40 rows)');
    expect(screen.getByTestId('estimate-detectable')).toHaveTextContent('With 10 test rows');
    await user.click(screen.getByRole('button', { name: 'Start run' }));
    expect(await screen.findByText('run page')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      dataset: 5,
      dataset_version: 1,
    });
  });

  it('sends early stopping in fit_config once turned on, watching val_reward', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({ ...ROUTES, 'POST /api/runs/': [201, { id: 9 }] });
    renderPage();
    expect(await screen.findByTestId('estimate-total')).toHaveTextContent('≈');
    // Off by default: no settings shown.
    expect(screen.getByLabelText('Early stopping')).not.toBeChecked();
    expect(screen.queryByLabelText('Patience (epochs)')).toBeNull();

    await user.clear(screen.getByLabelText('Validation split'));
    await user.type(screen.getByLabelText('Validation split'), '0.25');
    await user.click(screen.getByLabelText('Early stopping'));
    expect(screen.getByLabelText('Monitor')).toHaveDisplayValue('val_reward');
    expect(screen.getByTestId('estimate-total')).toHaveTextContent('≤');
    expect(screen.getByTestId('estimate-early-stopping')).toBeInTheDocument();

    await user.clear(screen.getByLabelText('Patience (epochs)'));
    await user.type(screen.getByLabelText('Patience (epochs)'), '0');
    expect(screen.getByLabelText('Patience (epochs)')).toHaveAccessibleDescription(
      'a whole number ≥ 1',
    );
    expect(screen.getByRole('button', { name: 'Start run' })).toBeDisabled();
    await user.clear(screen.getByLabelText('Patience (epochs)'));
    await user.type(screen.getByLabelText('Patience (epochs)'), '1');
    await user.type(screen.getByLabelText('Min delta'), '.5');
    await user.click(screen.getByLabelText('Restore best variables'));
    expect(screen.getByTestId('early-stopping-sentence')).toHaveTextContent(
      'Stops after 1 epoch without a rise of val_reward (by more than 0.5).',
    );

    await user.click(screen.getByRole('button', { name: 'Start run' }));
    expect(await screen.findByText('run page')).toBeInTheDocument();
    const sent = calls.find((c) => c.method === 'POST')?.body as {
      fit_config: Record<string, unknown>;
    };
    expect(sent.fit_config.validation_split).toBe(0.25);
    expect(sent.fit_config.early_stopping).toEqual({
      patience: 1,
      min_delta: 0.5,
      monitor: 'val_reward',
      restore_best_variables: true,
    });
  });

  it("shows the server's problems in the section they are about", async () => {
    const user = userEvent.setup();
    mockFetch({
      ...ROUTES,
      'POST /api/runs/': [400, { fit_config: { batch_size: ['larger than the training rows'] } }],
    });
    renderPage();
    await screen.findByTestId('estimate-total');
    await user.click(screen.getByRole('button', { name: 'Start run' }));
    const fit = screen.getByRole('region', { name: 'Fit settings' });
    expect(await within(fit).findByRole('alert')).toHaveTextContent(
      'fit_config.batch_size: larger than the training rows',
    );
    expect(
      within(screen.getByRole('region', { name: 'Optimizer' })).queryByRole('alert'),
    ).toBeNull();
  });

  it('adds a language provider on the spot', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      ...ROUTES,
      'POST /api/providers/': [
        201,
        { id: 3, name: 'scripted', kind: 'language', model: 'openai/x', is_default: false },
      ],
    });
    renderPage();
    await user.click(await screen.findByRole('button', { name: 'Add…' }));
    await user.type(screen.getByLabelText('Name', { exact: true }), 'scripted');
    await user.type(screen.getByLabelText('Model (litellm)'), 'x');
    // Enter adds the provider; it does not start the run around it.
    await user.type(screen.getByLabelText('API base URL'), 'http://127.0.0.1:9/v1{Enter}');
    await waitFor(() => expect(screen.queryByLabelText('Model (litellm)')).toBeNull());
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      name: 'scripted',
      kind: 'language',
      model: 'openai/x',
      api_base: 'http://127.0.0.1:9/v1',
      params: {},
    });
    expect(calls.some((c) => c.url === '/api/runs/')).toBe(false);
    expect(screen.getByRole('button', { name: 'Add…' })).toBeInTheDocument();
  });

  it('builds the form for an entry it has never seen from its declared settings', async () => {
    const user = userEvent.setup();
    const exactMatch = CATALOGUE.rewards.find((r) => r.name === 'ExactMatch')!;
    const startsLike: CatalogueEntry = {
      name: 'Custom>StartsLike',
      label: 'Starts like',
      description: '1.0 when the prediction starts like the ground truth.',
      needs: [],
      params: [
        {
          name: 'prefix_length',
          label: 'Prefix length',
          description: 'characters compared',
          type: 'int',
          default: 3,
          nullable: false,
          required: false,
          minimum: 1,
          maximum: null,
          exclusive_minimum: false,
          exclusive_maximum: false,
          choices: null,
        },
        ...exactMatch.params,
      ],
    };
    const catalogue = { ...CATALOGUE, rewards: [...CATALOGUE.rewards, startsLike] };
    const calls = mockFetch({
      ...ROUTES,
      'GET /api/catalogue/': [200, catalogue],
      'POST /api/runs/': [201, { id: 9 }],
    });
    renderPage();
    await screen.findByTestId('estimate-total');
    await user.selectOptions(screen.getByLabelText('Reward'), 'Starts like');
    expect(screen.getByText('1.0 when the prediction starts like the ground truth.')).toBeVisible();
    await user.clear(screen.getByLabelText('Prefix length'));
    await user.type(screen.getByLabelText('Prefix length'), '0');
    expect(screen.getByLabelText('Prefix length')).toHaveAccessibleDescription('must be ≥ 1');
    expect(screen.getByRole('button', { name: 'Start run' })).toBeDisabled();
    await user.type(screen.getByLabelText('Prefix length'), '5');
    await user.click(
      within(screen.getByRole('group', { name: 'in_mask' })).getByLabelText('answer'),
    );
    await user.click(screen.getByRole('button', { name: 'Start run' }));
    expect(await screen.findByText('run page')).toBeInTheDocument();
    const posted = calls.find((c) => c.method === 'POST')?.body as {
      compile_config: Record<string, unknown>;
    };
    expect(posted.compile_config.reward).toEqual({
      name: 'Custom>StartsLike',
      params: { prefix_length: 5, in_mask: ['answer'] },
    });
  });

  it("asks the picked provider's throughput for the program and shows the duration", async () => {
    const calls = mockFetch({
      ...ROUTES,
      'GET /api/runs/throughput/': [
        200,
        { ...unmeasured, provider: 1, local: false, runs: 2, calls_per_second: 2.5 },
      ],
    });
    renderPage();
    expect(await screen.findByTestId('estimate-duration')).toHaveTextContent(
      /^≈ .+ \(from your last 2 runs on this provider, 2\.5 calls\/s\)$/,
    );
    expect(screen.getByTestId('estimate-tokens')).toHaveTextContent('tokens unknown');
    // The optimizer is asked about too: runs with it give its own pace.
    expect(calls.map((c) => c.url)).toContain(
      '/api/runs/throughput/?provider=1&program=1&optimizer=RandomFewShot',
    );
  });

  it('says so when the catalogue cannot be read', async () => {
    mockFetch({ ...ROUTES, 'GET /api/catalogue/': [500, { detail: 'boom' }] });
    renderPage();
    expect(await screen.findByText(/boom|500/)).toBeInTheDocument();
  });
});
