import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { Catalogue } from '@/lib/api/types';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import catalogueJson from '../../__fixtures__/catalogue.json';
import NewRunPage from '../../NewRunPage';

const page = <T,>(results: T[]) => ({ count: results.length, next: null, previous: null, results });

const ROUTES: Record<string, [number, unknown]> = {
  'GET /api/programs/': [200, page([{ id: 1, name: 'qa' }])],
  'GET /api/programs/1/versions/': [200, page([{ id: 11, number: 2, message: '' }])],
  'GET /api/programs/1/versions/2/': [
    200,
    {
      id: 11,
      number: 2,
      document: {
        program: {
          outputs: ['generator'],
          modules: [
            {
              name: 'generator',
              module: {
                class_name: 'Generator',
                config: { data_model: { schema: { properties: { answer: {} } } } },
              },
            },
          ],
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
        output_schema: { properties: { answer: {}, total: {} } },
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
      { id: 3, name: 'judge', kind: 'language', model: 'openai/judge', is_default: false },
    ]),
  ],
  'GET /api/providers/catalogue/': [200, []],
  'GET /api/catalogue/': [200, catalogueJson as unknown as Catalogue],
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

async function ready() {
  expect(await screen.findByText('capitals (40 rows)', { selector: 'option' })).toBeInTheDocument();
  expect(await screen.findByText('v2', { selector: 'option' })).toBeInTheDocument();
}

const posted = (calls: { method: string; body?: unknown }[]) =>
  (calls.find((c) => c.method === 'POST')?.body as { compile_config: Record<string, unknown> })
    .compile_config;

stubApiPerTest();

describe('the run form’s field rules and judges', () => {
  it('builds field rules, a row per output field, with errors beside their inputs', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      ...ROUTES,
      'POST /api/runs/': [
        400,
        {
          compile_config: { reward: { params: { rules: { '1': { tolerance: ['too loose'] } } } } },
        },
      ],
    });
    renderPage();
    await ready();
    await user.selectOptions(screen.getByLabelText('Reward'), 'FieldRules');

    const rules = screen.getByRole('group', { name: 'Field rules' });
    const second = within(rules).getByRole('group', { name: 'Rule 2' });
    expect(within(rules).getByRole('group', { name: 'Rule 1' })).toHaveTextContent('answer');
    expect(within(second).getByLabelText('Field')).toHaveValue('total');
    expect(within(second).queryByLabelText('Tolerance')).toBeNull();
    await user.selectOptions(within(second).getByLabelText('Comparison'), 'numeric');
    await user.clear(within(second).getByLabelText('Tolerance'));
    await user.type(within(second).getByLabelText('Tolerance'), '-1');
    expect(within(second).getByLabelText('Tolerance')).toHaveAccessibleDescription(
      'must be a number ≥ 0',
    );
    expect(screen.getByRole('button', { name: 'Start run' })).toBeDisabled();
    await user.clear(within(second).getByLabelText('Tolerance'));
    await user.type(within(second).getByLabelText('Tolerance'), '0.01');
    await user.selectOptions(within(second).getByLabelText('Tolerance is'), 'relative');
    await user.clear(within(second).getByLabelText('Weight'));
    await user.type(within(second).getByLabelText('Weight'), '2');
    await user.click(screen.getByRole('button', { name: 'Add rule' }));
    const third = within(rules).getByRole('group', { name: 'Rule 3' });
    await user.selectOptions(within(third).getByLabelText('Comparison'), 'regex');
    expect(screen.getByRole('button', { name: 'Start run' })).toBeDisabled(); // no pattern yet
    await user.click(screen.getByRole('button', { name: 'Remove rule 3' }));

    await user.click(screen.getByRole('button', { name: 'Start run' }));
    expect(await within(second).findByText('too loose')).toBeInTheDocument();
    expect(posted(calls).reward).toEqual({
      name: 'FieldRules',
      params: {
        rules: [
          { field: 'answer', comparison: 'exact', weight: 1 },
          { field: 'total', comparison: 'numeric', weight: 2, tolerance: 0.01, relative: true },
        ],
      },
    });
  });

  it("sends an LM judge's criteria, scale and own provider", async () => {
    const user = userEvent.setup();
    const calls = mockFetch({ ...ROUTES, 'POST /api/runs/': [201, { id: 9 }] });
    renderPage();
    await ready();
    await user.selectOptions(screen.getByLabelText('Reward'), 'LMAsJudge');
    expect(screen.getByLabelText('Criteria').tagName).toBe('TEXTAREA');
    await user.type(screen.getByLabelText('Criteria'), 'names the right city');
    await user.selectOptions(screen.getByLabelText('Score scale'), 'Rating10');
    expect(screen.getByLabelText('Judge provider')).toHaveDisplayValue("the run's provider");
    await user.selectOptions(screen.getByLabelText('Judge provider'), '3');

    await user.click(screen.getByRole('button', { name: 'Start run' }));
    expect(await screen.findByText('run page')).toBeInTheDocument();
    expect(posted(calls).reward).toEqual({
      name: 'LMAsJudge',
      params: { score_type: 'Rating10', criteria: 'names the right city' },
      provider: 3,
    });
  });

  it('refuses a judge program whose output has no reward field', async () => {
    const user = userEvent.setup();
    mockFetch(ROUTES);
    renderPage();
    await ready();
    await user.selectOptions(screen.getByLabelText('Reward'), 'ProgramAsJudge');
    expect(screen.getByRole('button', { name: 'Start run' })).toBeDisabled();
    await user.selectOptions(screen.getByLabelText('Judge program'), '1');
    const version = screen.getByLabelText('Judge version');
    expect(await within(version).findByText('v2')).toBeInTheDocument();
    await user.selectOptions(version, '11');
    expect(
      await screen.findByText(
        "qa v2 cannot judge: its output needs a 'reward' field (a number in [0, 1]); its output fields are answer",
      ),
    ).toBeInTheDocument();
  });
});
