import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Estimate } from '../../model/estimate';
import { CallEstimate } from './CallEstimate';

const estimate: Estimate = {
  trainRows: 40,
  validationRows: 10,
  testRows: 20,
  steps: 5,
  evaluation: 40,
  training: 120,
  candidates: 226,
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
});
