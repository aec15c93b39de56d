import { screen, within } from '@testing-library/react';
import { Route } from 'react-router';
import { describe, expect, it } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import { TrainedVariables } from './TrainedVariables';

stubApiPerTest();

const paris = { inputs: { query: 'Capital of France?' }, outputs: { answer: 'Paris' } };
const rome = { inputs: { query: 'Capital of Italy?' }, outputs: { answer: 'Rome' } };

function renderVariables(finished = true) {
  return renderRoutes(
    '/',
    <Route path="/" element={<TrainedVariables runId={3} finished={finished} />} />,
  );
}

describe('TrainedVariables', () => {
  it("diffs each module's instructions and examples, before training against after", async () => {
    mockFetch({
      'GET /api/runs/3/variables/': [
        200,
        {
          'router_decision/state': {
            before: { instructions: 'Pick a label.', examples: [] },
            after: { instructions: 'Pick a label.', examples: [] },
          },
          'answerer/state': {
            before: { instructions: 'Answer the question.', examples: [rome] },
            after: {
              instructions: 'Answer the question with the city only.',
              examples: [{ ...paris, reward: 1 }],
            },
          },
        },
      ],
    });
    renderVariables();

    const answerer = await screen.findByRole('region', {
      name: 'answerer/state before and after training',
    });
    const words = within(answerer).getByLabelText('instructions diff');
    expect(words.querySelector('ins')).toHaveTextContent('with the city only.');
    expect(within(answerer).getByText(/1 added, 1 removed, 0 kept/)).toBeInTheDocument();
    const changes = within(answerer).getByRole('list', { name: 'examples added and removed' });
    expect(
      within(changes)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      '+ {"query":"Capital of France?"} → {"answer":"Paris"}',
      '− {"query":"Capital of Italy?"} → {"answer":"Rome"}',
    ]);

    const decision = screen.getByRole('region', {
      name: 'router_decision/state before and after training',
    });
    expect(within(decision).getByText('(unchanged)')).toBeInTheDocument();
    expect(within(decision).getByText(/unchanged \(0\)/)).toBeInTheDocument();
  });

  it('says so when the run kept no trained program, and asks nothing while it trains', async () => {
    const calls = mockFetch({
      'GET /api/runs/3/variables/': [
        200,
        { 'answerer/state': { before: { instructions: 'x', examples: [] }, after: null } },
      ],
    });
    const { unmount } = renderVariables(false);
    expect(screen.getByText('Before and after come when the run ends.')).toBeInTheDocument();
    expect(calls).toHaveLength(0);
    unmount();

    renderVariables();
    expect(await screen.findByText(/kept no trained program/)).toBeInTheDocument();
  });
});
