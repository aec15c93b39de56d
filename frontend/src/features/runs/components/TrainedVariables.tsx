import { useRunVariables } from '../api/runsVariables';
import { diffValue } from '../model/candidateDiff';
import { FieldChange } from './FieldChange';

/**
 * Each trainable variable (one per Generator, Decision or branch module) before and after
 * training: instructions diffed word by word, examples as those added and removed
 * (GET /api/runs/{id}/variables/: the document the run started from against the trained one).
 */
export function TrainedVariables({ runId, finished }: { runId: number; finished: boolean }) {
  const variables = useRunVariables(runId, finished);
  if (!finished) return <p className="note">Before and after come when the run ends.</p>;
  if (variables.isError) return <p className="note">{variables.error.message}</p>;
  if (!variables.data) return <p className="note">Loading the variables…</p>;
  const entries = Object.entries(variables.data);
  if (entries.length === 0) return <p className="note">This program has no trainable variable.</p>;
  return (
    <>
      {entries.map(([name, { before, after }]) => (
        <section key={name} aria-label={`${name} before and after training`}>
          <h3 className="mono">{name}</h3>
          {after === null ? (
            <p className="note">This run kept no trained program (it did not finish training).</p>
          ) : (
            diffValue(before, after).map((diff) => <FieldChange key={diff.field} diff={diff} />)
          )}
        </section>
      ))}
    </>
  );
}
