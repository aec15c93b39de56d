/** A deployment's largest input, as its page shows it and its owner types it (in kB). */

export const KB = 1024;
/** The range the server accepts (`MAX_INPUT_BYTES_RANGE`): 1 kB to 4 MB. */
export const LIMIT_RANGE_KB = [1, 4096] as const;

/** `262144` → `256 kB`, `4194304` → `4 MB`, `1536` → `1.5 kB`. */
export function describeBytes(bytes: number): string {
  const scaled = (value: number) => value.toFixed(1).replace(/\.0$/, '');
  if (bytes >= KB * KB) return `${scaled(bytes / (KB * KB))} MB`;
  if (bytes >= KB) return `${scaled(bytes / KB)} kB`;
  return `${bytes} bytes`;
}

/** What the owner typed, in kB, as bytes; or why it cannot be the limit. */
export function parseLimitKb(text: string): { bytes: number } | { error: string } {
  const [low, high] = LIMIT_RANGE_KB;
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value) || value < low || value > high)
    return { error: `a whole number of kB from ${low} to ${high}` };
  return { bytes: value * KB };
}
