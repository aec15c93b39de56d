import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route } from 'react-router';
import { describe, expect, it } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import { ExamplesTable } from './ExamplesTable';

stubApiPerTest();

const step = (fields: Record<string, unknown>) => ({
  inputs: null,
  outputs: null,
  error: null,
  parent: null,
  skipped: false,
  taken: null,
  ...fields,
});

// A Branch routing a support message: its decision chose "refund", the other branch skipped.
const routed = {
  input: { message: 'I want my money back' },
  expected: { reply: 'Refund started' },
  output: { reply: 'Refund started' },
  reward: 1,
  error: null,
  before_reward: 0,
  after_reward: 1,
  trace: [
    step({
      module: 'triage',
      inputs: { message: 'I want my money back' },
      outputs: [{ reply: 'Refund started' }, null],
      taken: ['refund'],
    }),
    step({
      module: 'triage_decision',
      parent: 'triage',
      inputs: { message: 'I want my money back', question: 'What does the customer want?' },
      outputs: { thinking: 'money back', choice: 'refund' },
    }),
    step({
      module: 'refunder',
      parent: 'triage',
      inputs: { message: 'I want my money back', choice: 'refund' },
      outputs: { reply: 'Refund started' },
    }),
    step({ module: 'answerer', parent: 'triage', skipped: true }),
  ],
};

describe('ExamplesTable', () => {
  it("opens a row's trace: each module in order, what it got and said, the branch taken", async () => {
    const user = userEvent.setup();
    mockFetch({
      'GET /api/runs/3/examples/?page=1&page_size=50': [
        200,
        { count: 2, page: 1, page_size: 50, results: [{ ...routed, trace: [] }, routed] },
      ],
    });
    renderRoutes('/', <Route path="/" element={<ExamplesTable runId={3} finished />} />);

    const button = await screen.findByRole('button', { name: 'Trace of row 2' });
    expect(screen.queryByRole('region', { name: 'Trace of row 2' })).not.toBeInTheDocument();
    await user.click(button);

    const trace = screen.getByRole('region', { name: 'Trace of row 2' });
    expect(button).toHaveAttribute('aria-expanded', 'true');
    const steps = within(trace).getAllByRole('listitem');
    expect(steps.map((s) => s.querySelector('b')?.textContent)).toEqual([
      'triage',
      'triage_decision',
      'refunder',
      'answerer',
    ]);
    expect(steps[0]).toHaveTextContent('took: refund');
    expect(steps[2]).toHaveTextContent('"message": "I want my money back"'); // what it got
    expect(steps[2]).toHaveTextContent('"reply": "Refund started"'); // what it said
    expect(steps[3]).toHaveTextContent('skipped: not reached');
    expect(steps[3]).not.toHaveTextContent('Said');

    await user.click(screen.getByRole('button', { name: 'Trace of row 1' }));
    expect(
      within(screen.getByRole('region', { name: 'Trace of row 1' })).getByText(
        'This row kept no trace.',
      ),
    ).toBeInTheDocument();
    await user.click(button);
    expect(screen.queryByRole('region', { name: 'Trace of row 2' })).not.toBeInTheDocument();
  });

  it("shows the reward's feedback before and after beside each reward, when some row has it", async () => {
    mockFetch({
      'GET /api/runs/3/examples/?page=1&page_size=50': [
        200,
        {
          count: 2,
          page: 1,
          page_size: 50,
          results: [
            {
              ...routed,
              before_feedback: "reply: expected 'Refund started', got 'Hello'",
              feedback: null,
            },
            { ...routed, reward: 0, after_reward: 0, feedback: 'too curt', before_feedback: null },
          ],
        },
      ],
    });
    renderRoutes('/', <Route path="/" element={<ExamplesTable runId={3} finished />} />);

    const table = await screen.findByRole('table', { name: 'Test rows' });
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual([
      '#',
      'Input',
      'Expected',
      'Output',
      'Before',
      'Feedback before',
      'After',
      'Feedback after',
      'Trace',
    ]);
    const [first, second] = within(table).getAllByRole('row').slice(1);
    const cells = (row: HTMLElement) =>
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent);
    expect(cells(first!).slice(4, 8)).toEqual([
      '0.00',
      "reply: expected 'Refund started', got 'Hello'",
      '1.00',
      '—',
    ]);
    expect(cells(second!).slice(4, 8)).toEqual(['0.00', '—', '0.00', 'too curt']);
  });

  it('has no feedback columns when no row has feedback', async () => {
    mockFetch({
      'GET /api/runs/3/examples/?page=1&page_size=50': [
        200,
        { count: 1, page: 1, page_size: 50, results: [{ ...routed, feedback: null }] },
      ],
    });
    renderRoutes('/', <Route path="/" element={<ExamplesTable runId={3} finished />} />);

    const table = await screen.findByRole('table', { name: 'Test rows' });
    expect(within(table).queryByRole('columnheader', { name: 'Feedback after' })).toBeNull();
    expect(within(table).getAllByRole('columnheader')).toHaveLength(7);
  });
});
