import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Estimate } from '../../model/estimate';
import type { Throughput } from '../../model/expectations';
import { unmeasured } from '../../__fixtures__/throughput';
import { CallEstimate } from './CallEstimate';

const estimate: Estimate = {
  trainRows: 40,
  validationRows: 10,
  testRows: 20,
  steps: 5,
  minibatch: 4,
  validationPasses: 3,
  evaluation: 40,
  training: 120,
  candidates: 226,
  optimizerCalls: 0,
  validation: 30,
  total: 416,
};

describe('CallEstimate', () => {
  it('weighs the estimate against the cap on calls', () => {
    render(
      <CallEstimate
        estimate={estimate}
        lmModules={1}
        caps={{ max_calls: 300, max_tokens: null, max_cost: null }}
      />,
    );
    expect(screen.getByTestId('estimate-cap-calls')).toHaveTextContent(
      'estimated 416 calls — over your cap of 300: the run will stop early and keep its best program',
    );
  });

  it('says the figures are at most with early stopping on', () => {
    const { rerender } = render(<CallEstimate estimate={estimate} lmModules={1} />);
    expect(screen.getByTestId('estimate-total')).toHaveTextContent('≈ 416');
    expect(screen.queryByTestId('estimate-early-stopping')).toBeNull();
    rerender(<CallEstimate estimate={estimate} lmModules={1} earlyStopping />);
    expect(screen.getByTestId('estimate-total')).toHaveTextContent('≤ 416');
    expect(screen.getByText('LM calls at most')).toBeInTheDocument();
    expect(screen.getByTestId('estimate-early-stopping')).toHaveTextContent(
      'Early stopping may end training before its last epoch',
    );
  });

  it('says within the cap, and nothing without caps', () => {
    const { rerender } = render(
      <CallEstimate
        estimate={estimate}
        lmModules={1}
        caps={{ max_calls: 500, max_tokens: null, max_cost: null }}
      />,
    );
    expect(screen.getByTestId('estimate-cap-calls')).toHaveTextContent(
      'estimated 416 calls — within your cap of 500',
    );
    rerender(<CallEstimate estimate={estimate} lmModules={1} />);
    expect(screen.queryByTestId('estimate-cap-calls')).toBeNull();
  });

  it("shows the duration, tokens and cost the provider's runs imply, against the caps", () => {
    const throughput: Throughput = {
      runs: 4,
      calls_per_second: 2.08,
      tokens_per_call: 120,
      tokens_from: 'provider',
      tokens_runs: 4,
      cost_per_token: 2e-6,
      prices: 'priced',
      cost_runs: 4,
    };
    render(
      <CallEstimate
        estimate={estimate}
        lmModules={1}
        caps={{ max_calls: null, max_tokens: 40_000, max_cost: 0.05 }}
        throughput={throughput}
      />,
    );
    // 416 calls at 2.08 calls/s: 200 s; 416 × 120 = 49,920 tokens at $2 per million.
    expect(screen.getByTestId('estimate-duration')).toHaveTextContent(
      '≈ 3 min (from your last 4 runs on this provider, 2.1 calls/s)',
    );
    expect(screen.getByTestId('estimate-tokens')).toHaveTextContent('≈ 49,920 tokens');
    expect(screen.getByTestId('estimate-cost')).toHaveTextContent('≈ $0.10');
    expect(screen.getByTestId('estimate-cap-tokens')).toHaveTextContent(
      'estimated 49,920 tokens — over your cap of 40,000: the run will stop early',
    );
    expect(screen.getByTestId('estimate-cap-cost')).toHaveTextContent(
      'estimated cost $0.10 — over your cap of $0.05',
    );
    expect(screen.getByTestId('estimate-bound')).toHaveTextContent('upper bound');
  });

  it('says what is unknown on a provider without finished runs, and weighs calls alone', () => {
    render(
      <CallEstimate
        estimate={estimate}
        lmModules={1}
        caps={{ max_calls: 500, max_tokens: 40_000, max_cost: 1 }}
        throughput={unmeasured}
      />,
    );
    expect(screen.getByTestId('estimate-duration')).toHaveTextContent(
      'no finished run on this provider yet: duration unknown',
    );
    expect(screen.getByTestId('estimate-cap-calls')).toBeInTheDocument();
    expect(screen.queryByTestId('estimate-cap-tokens')).toBeNull();
    expect(screen.queryByTestId('estimate-cap-cost')).toBeNull();
  });
});
