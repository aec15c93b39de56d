import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { omegaLineage } from '../../__fixtures__/lineage';
import { CandidatePanel } from './CandidatePanel';

const variable = omegaLineage.variables[0]!;
const rows = new Map(omegaLineage.rows.map((r) => [r.index, r]));
const node = (n: number) => variable.nodes.find((c) => c.id === `generator/state#${n}`)!;

describe('CandidatePanel', () => {
  it('shows a crossover against both parents: instructions diff, examples, rows won', () => {
    render(<CandidatePanel variable={variable} candidate={node(4)} rows={rows} />);
    const panel = screen.getByRole('complementary', { name: 'Candidate details' });
    expect(panel).toHaveTextContent('crossover of #2 and #3');
    expect(panel).toHaveTextContent('the candidate training ended with');

    const first = screen.getByRole('region', { name: 'Against parent #2' });
    const diff = within(first).getByLabelText('instructions diff');
    expect([...diff.querySelectorAll('ins')].map((e) => e.textContent)).toEqual([
      'capital ',
      'name only.',
    ]);
    expect(within(first).getByText(/1 added, 0 removed, 1 kept/)).toBeInTheDocument();
    expect(within(first).getByLabelText('examples added and removed')).toHaveTextContent(
      '+ {"query":"What is the capital of Peru?"} → {"answer":"Lima"}',
    );
    const won = within(first).getByRole('table', { name: 'Rows won against #2' });
    expect(won).toHaveTextContent('What is the capital of Chad?');
    expect(within(first).queryByRole('table', { name: 'Rows lost against #2' })).toBeNull();

    const second = screen.getByRole('region', { name: 'Against parent #3' });
    expect(second).toHaveTextContent('No row was scored for both');
    expect(within(second).getByText(/2 added, 1 removed, 0 kept/)).toBeInTheDocument();
  });

  it('shows rows won and lost against a single parent, and the initial value as it is', () => {
    const { rerender } = render(
      <CandidatePanel variable={variable} candidate={node(2)} rows={rows} />,
    );
    expect(screen.getByText(/won/).closest('p')).toHaveTextContent(
      'On the 4 rows both were scored on: won 1, lost 1, tied 2.',
    );
    expect(screen.getByRole('table', { name: 'Rows lost against #1' })).toHaveTextContent('Chad');
    expect(screen.getByText(/dropped by the competition at the end of epoch 1/)).toBeVisible();

    rerender(<CandidatePanel variable={variable} candidate={node(1)} rows={rows} />);
    expect(screen.getByRole('heading', { name: 'Its value' })).toBeInTheDocument();
    expect(screen.getByText('Answer the question.')).toBeInTheDocument();

    rerender(<CandidatePanel variable={variable} candidate={null} rows={rows} />);
    expect(screen.getByText(/Select a candidate/)).toBeInTheDocument();
  });
});
