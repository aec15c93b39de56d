import type {
  LineageCandidate,
  LineageRow,
  ParentComparison,
  RowOutcome,
  VariableLineage,
} from '../../api/runsLineage';
import { diffValue } from '../../model/candidateDiff';
import { Example, FieldChange } from '../FieldChange';
import { shortId } from '../../model/lineageGraph';
import styles from './lineage.module.css';

const fmt = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(3));
const compact = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function fate(c: LineageCandidate): string {
  if (c.best) return 'the candidate training ended with (in the final population)';
  if (c.in_population) return 'survived: in the final population';
  if (c.merged_into) return `identical to ${shortId(c.merged_into)}: merged into it`;
  if (c.dropped_at !== null)
    return `dropped by the competition at the end of epoch ${c.dropped_at}`;
  return 'not in the final population';
}

/** A candidate without parents: its fields as they are (examples listed). */
function InitialValue({ value }: { value: Record<string, unknown> | null }) {
  if (!value) return <p className="note">Its value is not in this run's events.</p>;
  return (
    <>
      <h3>Its value</h3>
      {Object.entries(value).map(([field, v]) => (
        <div key={field}>
          <h4 className="mono">{field}</h4>
          {Array.isArray(v) ? (
            v.length === 0 ? (
              <p className="note">none</p>
            ) : (
              <ul className={styles.examples}>
                {v.map((e, i) => (
                  <li key={i}>
                    <Example example={e} />
                  </li>
                ))}
              </ul>
            )
          ) : (
            <p className={styles.text}>{compact(v)}</p>
          )}
        </div>
      ))}
    </>
  );
}

function RowTable({
  title,
  outcomes,
  rows,
  className,
}: {
  title: string;
  outcomes: RowOutcome[];
  rows: Map<number, LineageRow>;
  className: string;
}) {
  if (outcomes.length === 0) return null;
  return (
    <table className={`table ${styles.rows}`} aria-label={title}>
      <thead>
        <tr>
          <th className="num">Row</th>
          <th>Input → expected</th>
          <th className="num">It</th>
          <th className="num">Parent</th>
        </tr>
      </thead>
      <tbody>
        {outcomes.map((o) => {
          const row = rows.get(o.row);
          return (
            <tr key={o.row}>
              <td className="num">{o.row}</td>
              <td className="mono">{row ? `${row.input} → ${row.expected}` : '—'}</td>
              <td className={`num ${className}`}>{fmt(o.reward)}</td>
              <td className="num">{fmt(o.parent_reward)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function AgainstParent({
  candidate,
  parent,
  comparison,
  rows,
}: {
  candidate: LineageCandidate;
  parent: LineageCandidate | undefined;
  comparison: ParentComparison | undefined;
  rows: Map<number, LineageRow>;
}) {
  const parentId = comparison?.parent ?? parent?.id ?? '';
  const diffs = diffValue(parent?.value, candidate.value);
  return (
    <section aria-label={`Against parent ${shortId(parentId)}`}>
      <h3>
        Against parent <span className="mono">{shortId(parentId)}</span>
        {parent ? ` (${parent.operation}, reward ${fmt(parent.reward)})` : ''}
      </h3>
      {parent?.value ? (
        diffs.map((d) => <FieldChange key={d.field} diff={d} />)
      ) : (
        <p className="note">The parent's value is not in this run's events.</p>
      )}
      <h4>Training rows</h4>
      {!comparison || comparison.shared === 0 ? (
        <p className="note">No row was scored for both: their minibatches did not overlap.</p>
      ) : (
        <>
          <p className="note">
            On the {comparison.shared === 1 ? 'one row' : `${comparison.shared} rows`} both were
            scored on: won <b className={styles.won}>{comparison.won.length}</b>, lost{' '}
            <b className={styles.lost}>{comparison.lost.length}</b>, tied {comparison.tied}.
          </p>
          <RowTable
            title={`Rows won against ${shortId(parentId)}`}
            outcomes={comparison.won}
            rows={rows}
            className={styles.won ?? ''}
          />
          <RowTable
            title={`Rows lost against ${shortId(parentId)}`}
            outcomes={comparison.lost}
            rows={rows}
            className={styles.lost ?? ''}
          />
        </>
      )}
    </section>
  );
}

/** The selected candidate: what it is, its value diffed against each parent, rows won and lost. */
export function CandidatePanel({
  variable,
  candidate,
  rows,
}: {
  variable: VariableLineage;
  candidate: LineageCandidate | null;
  rows: Map<number, LineageRow>;
}) {
  if (!candidate)
    return (
      <aside className={styles.panel} aria-label="Candidate details">
        <p className="note">Select a candidate to see how it differs from its parents.</p>
      </aside>
    );
  const byId = new Map(variable.nodes.map((n) => [n.id, n]));
  return (
    <aside className={styles.panel} aria-label="Candidate details">
      <h3 className="mono" style={{ marginTop: 0 }}>
        {candidate.id}
      </h3>
      <dl className={styles.facts}>
        <dt>Operation</dt>
        <dd>
          {candidate.operation}
          {candidate.parents.length > 0 && ` of ${candidate.parents.map(shortId).join(' and ')}`}
        </dd>
        <dt>Reward</dt>
        <dd>
          {fmt(candidate.reward)} ({candidate.nb_evaluations} evaluation
          {candidate.nb_evaluations === 1 ? '' : 's'}, {candidate.rows_scored} rows)
        </dd>
        {candidate.score !== null && (
          <>
            <dt>DNS score</dt>
            <dd>{fmt(candidate.score)}</dd>
          </>
        )}
        <dt>Born</dt>
        <dd>
          epoch {candidate.epoch ?? '—'}, step {candidate.step ?? '—'}
        </dd>
        <dt>Fate</dt>
        <dd>{fate(candidate)}</dd>
      </dl>
      {candidate.parents.length === 0 ? (
        <InitialValue value={candidate.value} />
      ) : (
        candidate.parents.map((parentId) => (
          <AgainstParent
            key={parentId}
            candidate={candidate}
            parent={byId.get(parentId)}
            comparison={candidate.comparisons.find((c) => c.parent === parentId)}
            rows={rows}
          />
        ))
      )}
    </aside>
  );
}
