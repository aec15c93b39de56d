/** A paired comparison's verdict (studio/runs/significance.py) in plain words. */
import type { PairedComparison } from './api/types';

/** A signed figure: "+0.250", "−0.100" (a real minus sign), "0.000". */
export function signed(value: number, digits = 3): string {
  const text = Math.abs(value).toFixed(digits);
  if (Number(text) === 0) return text;
  return `${value > 0 ? '+' : '−'}${text}`;
}

const TONE = {
  'significant gain': 'gain',
  'significant loss': 'loss',
  'no detectable change': 'unknown',
} as const;

/** How a verdict is styled: only a significant gain as a gain. */
export function verdictTone(c: PairedComparison): (typeof TONE)[keyof typeof TONE] {
  return TONE[c.verdict];
}

/** The verdict in plain words: what was seen, the 95% interval and n, and what n can tell. */
export function verdictLines(c: PairedComparison): {
  label: string;
  figures: string;
  hint: string;
} {
  const interval = `95% interval ${signed(c.ci_low)} to ${signed(c.ci_high)}`;
  const figures = `${signed(c.difference)} (${interval}, n = ${c.n}); mean reward ${c.mean_before.toFixed(3)} → ${c.mean_after.toFixed(3)}`;
  if (c.verdict === 'significant gain') return { label: 'Significant gain', figures, hint: '' };
  if (c.verdict === 'significant loss') return { label: 'Significant loss', figures, hint: '' };
  const hint =
    c.rows_needed > c.n
      ? `You need about ${c.rows_needed.toLocaleString()} rows to see a gain of ${c.target}.`
      : `${c.n} rows detect a gain of ${c.target} most of the time: a real change is probably smaller.`;
  return { label: `No detectable change at n = ${c.n}`, figures, hint };
}
