import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { PairedComparison, Versus } from '../api/types';
import { signed } from '../verdict';
import { GainVerdict, VersusVerdict } from './GainVerdict';

const base: PairedComparison = {
  n: 40,
  mean_before: 0.5,
  mean_after: 0.75,
  difference: 0.25,
  ci_low: 0.15,
  ci_high: 0.35,
  p_value: 0.0001,
  min_detectable_difference: 0.12,
  verdict: 'significant gain',
  target: 0.05,
  rows_needed: 230,
  sentence: 'significant gain at n=40: ...',
};

describe('GainVerdict', () => {
  it('calls a significant gain one, with the difference, its 95% interval and n', () => {
    render(<GainVerdict comparison={base} title="After vs before" />);
    const verdict = screen.getByRole('status', { name: 'After vs before' });
    expect(verdict).toHaveAttribute('data-verdict', 'significant gain');
    expect(verdict).toHaveTextContent('Significant gain');
    expect(verdict).toHaveTextContent('+0.250 (95% interval +0.150 to +0.350, n = 40)');
    expect(verdict).toHaveTextContent('mean reward 0.500 → 0.750');
    expect(verdict).not.toHaveTextContent('rows to see');
  });

  it('says "no detectable change" with the rows needed, never styled as a gain', () => {
    const none: PairedComparison = {
      ...base,
      mean_after: 0.525,
      difference: 0.025,
      ci_low: -0.05,
      ci_high: 0.1,
      p_value: 0.62,
      verdict: 'no detectable change',
      rows_needed: 1235,
    };
    render(<GainVerdict comparison={none} title="After vs before" />);
    const verdict = screen.getByRole('status');
    expect(verdict).toHaveTextContent('No detectable change at n = 40');
    expect(verdict).toHaveTextContent('+0.025 (95% interval −0.050 to +0.100, n = 40)');
    expect(verdict).toHaveTextContent('You need about 1,235 rows to see a gain of 0.05.');
    expect(verdict).not.toHaveTextContent('Significant');
    expect(verdict.className).toMatch(/unknown/);
    expect(verdict.className).not.toMatch(/gain/);
  });

  it('says when enough rows found nothing: a real change is probably smaller', () => {
    const enough = { ...base, n: 900, verdict: 'no detectable change' as const, rows_needed: 785 };
    render(<GainVerdict comparison={enough} title="t" />);
    expect(screen.getByRole('status')).toHaveTextContent(
      '900 rows detect a gain of 0.05 most of the time: a real change is probably smaller.',
    );
  });

  it('calls a significant loss one, in the loss style', () => {
    const loss = {
      ...base,
      difference: -0.2,
      ci_low: -0.3,
      ci_high: -0.1,
      verdict: 'significant loss' as const,
    };
    render(<GainVerdict comparison={loss} title="t" />);
    const verdict = screen.getByRole('status');
    expect(verdict).toHaveTextContent('Significant loss');
    expect(verdict).toHaveTextContent('−0.200 (95% interval −0.300 to −0.100');
    expect(verdict.className).toMatch(/loss/);
  });
});

describe('VersusVerdict', () => {
  it('shows the paired comparison when both runs share their test rows', () => {
    const versus: Versus = {
      baseline: 1,
      paired: true,
      reason: '',
      note: '',
      rows: 40,
      test_versions: { baseline: 1, run: 1 },
      comparison: base,
      difference: 0.25,
    };
    render(<VersusVerdict versus={versus} title="#2 vs #1" />);
    expect(screen.getByRole('status', { name: '#2 vs #1' })).toHaveTextContent('Significant gain');
    expect(screen.queryByTestId('versus-note')).not.toBeInTheDocument();
  });

  it('says when the runs tested on different versions, and on which rows they were paired', () => {
    const note =
      'different test versions (v1 and v2): paired on the 16 test rows both evaluated, identical in inputs and targets (of 20 and 19)';
    const versus: Versus = {
      baseline: 1,
      paired: true,
      reason: '',
      note,
      rows: 16,
      test_versions: { baseline: 1, run: 2 },
      comparison: base,
      difference: 0.25,
    };
    render(<VersusVerdict versus={versus} title="#2 vs #1" />);
    expect(screen.getByTestId('versus-note')).toHaveTextContent(note);
  });

  it('says why runs are not paired and gives only the unpaired difference', () => {
    const versus: Versus = {
      baseline: 1,
      paired: false,
      reason: 'different datasets: the rows cannot be paired',
      note: '',
      rows: 0,
      test_versions: { baseline: 1, run: 1 },
      comparison: null,
      difference: 0.05,
    };
    render(<VersusVerdict versus={versus} title="#2 vs #1" />);
    const note = screen.getByRole('status');
    expect(note).toHaveTextContent('Not compared row by row');
    expect(note).toHaveTextContent('different datasets: the rows cannot be paired');
    expect(note).toHaveTextContent('+0.050 (unpaired, no interval)');
    expect(note).not.toHaveTextContent('Significant');
  });
});

describe('signed', () => {
  it('writes a sign on non-zero figures only', () => {
    expect(signed(0.25)).toBe('+0.250');
    expect(signed(-0.1)).toBe('−0.100');
    expect(signed(0)).toBe('0.000');
    expect(signed(-0.0001)).toBe('0.000');
  });
});
