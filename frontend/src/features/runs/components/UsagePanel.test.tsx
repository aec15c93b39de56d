import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildView } from '../model/runView';
import { UsagePanel } from './UsagePanel';

const usage = (extra: Record<string, unknown>) =>
  buildView([{ seq: 1, kind: 'usage', payload: { calls: 120, ...extra } }]);

describe('UsagePanel', () => {
  it('shows queueing vs provider time, concurrency, cache hits and budget meters', () => {
    render(
      <UsagePanel
        view={usage({
          mean_queue_ms: 12.4,
          mean_provider_ms: 840,
          cached_calls: 18,
          concurrency_bound: 4,
          max_concurrency: 8,
          concurrency_history: [
            { at: 1, bound: 8, reason: 'start' },
            { at: 2, bound: 4, reason: 'rate limited' },
          ],
          budget: {
            calls: 120,
            tokens: 0,
            cost: 0.5,
            max_calls: 200,
            max_tokens: null,
            max_cost: 2,
            exhausted: null,
          },
        })}
      />,
    );
    expect(screen.getByTestId('usage-timing')).toHaveTextContent(
      'queue 12 ms · provider 840 ms per call',
    );
    expect(screen.getByTestId('usage-concurrency')).toHaveTextContent(
      '4 calls at a time (of 8) — lowered after rate limits',
    );
    expect(screen.getByTestId('usage-cache')).toHaveTextContent(
      '18 answers reused from your cache',
    );
    const budget = screen.getByTestId('usage-budget');
    expect(budget).toHaveTextContent('calls 120 / 200');
    expect(budget).toHaveTextContent('cost $0.50 / $2.00');
    expect(screen.getByLabelText('calls budget')).toHaveAttribute('value', '120');
  });

  it('leaves out what the run did not report', () => {
    render(<UsagePanel view={usage({ concurrency_bound: 8, max_concurrency: 8 })} />);
    expect(screen.getByTestId('usage-concurrency')).toHaveTextContent(/^8 calls at a time$/);
    expect(screen.queryByTestId('usage-cache')).toBeNull();
    expect(screen.queryByTestId('usage-budget')).toBeNull();
  });
});
