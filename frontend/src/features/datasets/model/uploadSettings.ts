/** Checks of the split settings typed at upload, as the server makes them. */

/** The test fraction typed, checked as the server does (0 <= f <= 0.99). */
export function testFractionError(text: string): string | null {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) return 'A number from 0 to 0.99.';
  if (value < 0 || value > 0.99) return 'From 0 (no test split) to 0.99.';
  return null;
}

/** The split seed typed: a whole number. */
export function splitSeedError(text: string): string | null {
  return /^-?\d+$/.test(text.trim()) ? null : 'A whole number.';
}
