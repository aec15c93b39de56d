import type { RunView } from '../model/runView';
import styles from './population.module.css';

const fmt = (v: number | null) => (v === null ? '—' : v.toFixed(3));

/** The optimizer's population per variable: reward, DNS score, parents, operation. */
export function PopulationTable({ view }: { view: RunView }) {
  const entries = Object.entries(view.populations);
  if (entries.length === 0)
    return (
      <p className="note">
        The population appears at the end of the first epoch ({view.candidates} candidates proposed
        so far).
      </p>
    );
  return (
    <>
      <p className="note">{view.candidates} candidates proposed so far.</p>
      {entries.map(([variable, population]) => (
        <div key={variable}>
          <h3 className={`mono ${styles.heading}`}>
            {variable} — epoch {population.epoch}
            {population.algorithm ? ` (${population.algorithm})` : ''}
          </h3>
          <div
            className={styles.scroll}
            role="region"
            aria-label={`${variable} population, scrollable`}
            tabIndex={0}
          >
            <table className="table" aria-label={`Population of ${variable}`}>
              <thead>
                <tr>
                  <th>Candidate</th>
                  <th className="num">Reward</th>
                  <th className="num">DNS score</th>
                  <th>Parents</th>
                  <th>Operation</th>
                  <th>Kept</th>
                </tr>
              </thead>
              <tbody>
                {population.candidates.map((c) => (
                  <tr key={c.id}>
                    <td className={`mono ${styles.wrap}`}>{c.id}</td>
                    <td className="num">{fmt(c.reward)}</td>
                    <td className="num">{fmt(c.score)}</td>
                    <td className={`mono ${styles.wrap}`}>{c.parents.join(', ') || '—'}</td>
                    <td>{c.operation}</td>
                    <td>{c.kept === null ? '—' : c.kept ? 'yes' : 'no'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      ))}
    </>
  );
}
