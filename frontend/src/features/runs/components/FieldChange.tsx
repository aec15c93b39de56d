import type { FieldDiff } from '../model/candidateDiff';
import styles from './lineage/lineage.module.css';

const compact = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** An example as `inputs → outputs` (else its JSON). */
export function Example({ example }: { example: unknown }) {
  if (example && typeof example === 'object' && !Array.isArray(example)) {
    const { inputs, outputs } = example as Record<string, unknown>;
    if (inputs !== undefined || outputs !== undefined)
      return (
        <>
          {compact(inputs)} → {compact(outputs)}
        </>
      );
  }
  return <>{compact(example)}</>;
}

/** One field of a value against the one before: words added and removed, examples added
 * and removed, or before / after JSON (`candidateDiff.ts`). */
export function FieldChange({ diff }: { diff: FieldDiff }) {
  if (diff.kind === 'text')
    return (
      <>
        <h4>
          <span className="mono">{diff.field}</span> {diff.changed ? '' : '(unchanged)'}
        </h4>
        <p className={styles.text} aria-label={`${diff.field} diff`}>
          {diff.segments.map((s, i) =>
            s.kind === 'added' ? (
              <ins key={i}>{s.text}</ins>
            ) : s.kind === 'removed' ? (
              <del key={i}>{s.text}</del>
            ) : (
              <span key={i}>{s.text}</span>
            ),
          )}
        </p>
      </>
    );
  if (diff.kind === 'examples')
    return (
      <>
        <h4>
          <span className="mono">{diff.field}</span>:{' '}
          {diff.changed
            ? `${diff.added.length} added, ${diff.removed.length} removed, ${diff.kept} kept`
            : `unchanged (${diff.kept})`}
        </h4>
        {(diff.added.length > 0 || diff.removed.length > 0) && (
          <ul className={styles.examples} aria-label={`${diff.field} added and removed`}>
            {diff.added.map((e, i) => (
              <li key={`a${i}`} className={styles.added}>
                + <Example example={e} />
              </li>
            ))}
            {diff.removed.map((e, i) => (
              <li key={`r${i}`} className={styles.removed}>
                − <Example example={e} />
              </li>
            ))}
          </ul>
        )}
      </>
    );
  return (
    <>
      <h4>
        <span className="mono">{diff.field}</span> {diff.changed ? '' : '(unchanged)'}
      </h4>
      {diff.changed && <pre className={`${styles.text} diff-old`}>{compact(diff.before)}</pre>}
      <pre className={`${styles.text} diff-new`}>{compact(diff.after)}</pre>
    </>
  );
}
