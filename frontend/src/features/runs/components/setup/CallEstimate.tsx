import { detectableSentence } from '../../model/detectable';
import { capSentences, type Caps } from '../../model/budget';
import type { Estimate } from '../../model/estimate';

const NO_CAPS: Caps = { max_calls: null, max_tokens: null, max_cost: null };

/**
 * How many LM calls the run will make, by where they go, and what its test rows can tell;
 * against the run's caps, whether it will stop early on one (keeping its best program).
 */
export function CallEstimate({
  estimate,
  lmModules,
  caps = NO_CAPS,
}: {
  estimate: Estimate | null;
  lmModules: number;
  caps?: Caps;
}) {
  if (!estimate) return <p className="note">Choose a dataset and valid fit settings.</p>;
  const againstCaps = capSentences({ calls: estimate.total }, caps);
  return (
    <div aria-label="Estimate">
      <div className="stats">
        <div className="stat">
          <b data-testid="estimate-total">≈ {estimate.total.toLocaleString()}</b>
          <span>LM calls in all</span>
        </div>
        <div className="stat">
          <b>{estimate.training.toLocaleString()}</b>
          <span>training ({estimate.trainRows} rows × epochs)</span>
        </div>
        <div className="stat">
          <b>{estimate.candidates.toLocaleString()}</b>
          <span>candidate minibatches</span>
        </div>
        <div className="stat">
          <b>{estimate.validation.toLocaleString()}</b>
          <span>validation ({estimate.validationRows} rows)</span>
        </div>
        <div className="stat">
          <b>{estimate.evaluation.toLocaleString()}</b>
          <span>before / after ({estimate.testRows} test rows)</span>
        </div>
      </div>
      {againstCaps.map((c) => (
        <p
          key={c.name}
          className={c.over ? 'alert' : 'note'}
          role={c.over ? 'status' : undefined}
          data-testid={`estimate-cap-${c.name}`}
        >
          {c.text}
        </p>
      ))}
      <p className="note">
        {lmModules} LM module(s) per prediction; retries and cache hits move the real count.
      </p>
      <p className="note" data-testid="estimate-detectable">
        {detectableSentence(estimate.testRows)}
      </p>
    </div>
  );
}
