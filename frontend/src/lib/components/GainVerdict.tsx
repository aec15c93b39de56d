import type { PairedComparison, Versus } from '../api/types';
import { signed, verdictLines, verdictTone } from '../verdict';
import styles from './GainVerdict.module.css';

/**
 * Whether a change is real, from the server's paired comparison (`compare_paired`):
 * green only for a significant gain; "no detectable change" stays grey with the rows a
 * useful answer needs.
 */
export function GainVerdict({
  comparison,
  title,
}: {
  comparison: PairedComparison;
  title: string;
}) {
  const tone = verdictTone(comparison);
  const { label, figures, hint } = verdictLines(comparison);
  return (
    <div
      className={`${styles.verdict} ${styles[tone]}`}
      role="status"
      aria-label={title}
      data-verdict={comparison.verdict}
      title={comparison.sentence}
    >
      <p className={styles.headline}>
        <span className="note">{title}: </span>
        <span className={styles.label}>{label}</span>
      </p>
      <p className={styles.detail}>{figures}</p>
      {hint && <p className={styles.detail}>{hint}</p>}
    </div>
  );
}

/**
 * A run against the first run of a comparison: paired on the test rows both evaluated, else
 * why not; when their test versions differ, it says so and what was paired.
 */
export function VersusVerdict({ versus, title }: { versus: Versus; title: string }) {
  const note = versus.note ? (
    <p className={styles.detail} data-testid="versus-note">
      {versus.note}
    </p>
  ) : null;
  if (versus.paired && versus.comparison)
    return (
      <div>
        <GainVerdict comparison={versus.comparison} title={title} />
        {note}
      </div>
    );
  return (
    <div className={`${styles.verdict} ${styles.unknown}`} role="status" aria-label={title}>
      <p className={styles.headline}>
        <span className="note">{title}: </span>
        <span className={styles.label}>Not compared row by row</span>
      </p>
      <p className={styles.detail}>
        {versus.reason}
        {versus.difference !== null &&
          `. Difference of the mean rewards after training: ${signed(versus.difference)} (unpaired, no interval).`}
      </p>
      {note}
    </div>
  );
}
