/**
 * What a test split of n rows can tell before the run, as `optimizer_core.stats` computes
 * it after (`minimum_detectable_difference`, `rows_needed`): the normal approximation to
 * a two-sided paired test at alpha 0.05 with power 0.8, with a conservative sd of 0.5 for
 * the per-row differences of rewards in [0, 1] (the evaluation has measured none yet).
 */

/** z(1 - 0.05 / 2) + z(0.8): statistics.NormalDist().inv_cdf(0.975) + inv_cdf(0.8). */
const Z_SUM = 1.959963984540054 + 0.8416212335729143;
export const PRIOR_SD = 0.5;
/** The gain a run is sized for (the studio's verdicts use the same). */
export const TARGET_GAIN = 0.05;

/** The smallest true mean difference n paired rows detect 80% of the time. */
export function minimumDetectable(n: number, sd = PRIOR_SD): number {
  return (Z_SUM * sd) / Math.sqrt(n);
}

/** About how many paired rows detect a true difference of `difference` (at least 2). */
export function rowsNeeded(difference = TARGET_GAIN, sd = PRIOR_SD): number {
  const exact = ((Z_SUM * sd) / Math.abs(difference)) ** 2;
  return Math.max(2, Math.ceil(exact - 1e-9));
}

/** Round a detectable gain for people: 0.313 -> "0.31", 0.0495 -> "0.05". */
function roughly(value: number): string {
  return value >= 1 ? 'more than the whole reward range' : String(Number(value.toPrecision(2)));
}

/** One sentence for run setup: what a gain must measure to show with `testRows` rows. */
export function detectableSentence(testRows: number): string {
  const needed = rowsNeeded();
  if (testRows < 2)
    return `With ${testRows} test row${testRows === 1 ? '' : 's'}, no gain can be told from noise; about ${needed.toLocaleString()} rows are needed to see a gain of ${TARGET_GAIN}.`;
  const smallest = minimumDetectable(testRows);
  if (testRows >= needed)
    return `With ${testRows.toLocaleString()} test rows, a gain of ${TARGET_GAIN} is detectable (down to about ${roughly(smallest)}).`;
  return `With ${testRows.toLocaleString()} test rows, only a gain of about ${roughly(smallest)} would be detectable; about ${needed.toLocaleString()} rows are needed to see a gain of ${TARGET_GAIN}.`;
}
