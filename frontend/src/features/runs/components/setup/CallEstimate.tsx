import { detectableSentence } from '../../model/detectable';
import type { Estimate } from '../../model/estimate';

/** How many LM calls the run will make, by where they go, and what its test rows can tell. */
export function CallEstimate({
  estimate,
  lmModules,
}: {
  estimate: Estimate | null;
  lmModules: number;
}) {
  if (!estimate) return <p className="note">Choose a dataset and valid fit settings.</p>;
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
      <p className="note">
        {lmModules} LM module(s) per prediction; retries and cache hits move the real count.
      </p>
      <p className="note" data-testid="estimate-detectable">
        {detectableSentence(estimate.testRows)}
      </p>
    </div>
  );
}
