import { traceSteps } from '../trace/trace';
import styles from './TraceSteps.module.css';

/**
 * A test row's trace, module by module in the order they ran: what each got and said, the
 * label a Branch or a Decision took, the modules it did not reach marked skipped. A region
 * named `label` (and `id`, for the button that opens it to control).
 */
export function TraceSteps({ trace, label, id }: { trace: unknown; label: string; id?: string }) {
  const steps = traceSteps(trace);
  return (
    <div role="region" aria-label={label} id={id}>
      {steps.length === 0 ? (
        <p className="note">This row kept no trace.</p>
      ) : (
        <ol className={styles.steps}>
          {steps.map((step, index) => (
            <li
              key={index}
              className={`${styles.step} ${step.status === 'skipped' ? styles.skipped : ''}`}
              style={{ marginLeft: step.depth * 18 }}
            >
              <span className="mono">
                <b>{step.module}</b>
              </span>{' '}
              {step.took && <span className="badge">took: {step.took.join(', ')}</span>}
              {step.status === 'skipped' && <span className="badge">skipped: not reached</span>}
              {step.status === 'failed' && <span className="badge badge-failed">failed</span>}
              {step.status !== 'skipped' && (
                <div className={styles.io}>
                  <div>
                    <span className="note">Got</span>
                    <pre className="block mono">{step.got ?? '—'}</pre>
                  </div>
                  <div>
                    <span className="note">{step.status === 'failed' ? 'Error' : 'Said'}</span>
                    <pre className="block mono">{step.error ?? step.said ?? '—'}</pre>
                  </div>
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
