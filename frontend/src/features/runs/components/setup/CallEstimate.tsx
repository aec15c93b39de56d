import { detectableSentence } from '../../model/detectable';
import { capSentences, type Caps } from '../../model/budget';
import type { Estimate } from '../../model/estimate';
import {
  expectedCost,
  expectedDuration,
  expectedTokens,
  plannedUsage,
  type Throughput,
} from '../../model/expectations';

const NO_CAPS: Caps = { max_calls: null, max_tokens: null, max_cost: null };

function expectationsOf(estimate: Estimate, throughput: Throughput) {
  const calls = estimate.total;
  const tokens = expectedTokens(calls, throughput);
  return [
    { name: 'duration', text: expectedDuration(calls, throughput, estimate.optimizerCalls).text },
    { name: 'tokens', text: tokens.text },
    { name: 'cost', text: expectedCost(tokens.value, throughput).text },
  ];
}

/**
 * How many LM calls the run will make, by where they go, and what its test rows can tell;
 * from the provider's recent finished runs (`throughput`), how long it takes and the tokens
 * and cost it spends; against the run's caps, whether it will stop early on one (keeping
 * its best program). With early stopping on, the training may end before its last epoch:
 * the figures are at most.
 */
export function CallEstimate({
  estimate,
  lmModules,
  caps = NO_CAPS,
  throughput = null,
  earlyStopping = false,
}: {
  estimate: Estimate | null;
  lmModules: number;
  caps?: Caps;
  /** What the provider's past runs measured; null while unknown (no provider, loading). */
  throughput?: Throughput | null;
  /** Early stopping is on: training may stop before its last epoch. */
  earlyStopping?: boolean;
}) {
  if (!estimate) return <p className="note">Choose a dataset and valid fit settings.</p>;
  const expectations = throughput ? expectationsOf(estimate, throughput) : [];
  const againstCaps = capSentences(plannedUsage(estimate.total, throughput), caps);
  return (
    <div aria-label="Estimate">
      <div className="stats">
        <div className="stat">
          <b data-testid="estimate-total">
            {earlyStopping ? '≤' : '≈'} {estimate.total.toLocaleString()}
          </b>
          <span>{earlyStopping ? 'LM calls at most' : 'LM calls in all'}</span>
        </div>
        <div className="stat">
          <b>{estimate.training.toLocaleString()}</b>
          <span>training ({estimate.trainRows} rows × epochs)</span>
        </div>
        <div className="stat">
          <b>{estimate.candidates.toLocaleString()}</b>
          <span>candidate minibatches ({estimate.minibatch} rows each)</span>
        </div>
        <div className="stat">
          <b>{estimate.validation.toLocaleString()}</b>
          <span>
            validation ({estimate.validationRows} rows × {estimate.validationPasses} passes)
          </span>
        </div>
        <div className="stat">
          <b>{estimate.evaluation.toLocaleString()}</b>
          <span>before / after ({estimate.testRows} test rows)</span>
        </div>
      </div>
      {expectations.map((e) => (
        <p key={e.name} className="note" data-testid={`estimate-${e.name}`}>
          {e.text}
        </p>
      ))}
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
      {earlyStopping && (
        <p className="note" data-testid="estimate-early-stopping">
          Early stopping may end training before its last epoch: the calls, time, tokens and cost
          above are at most.
        </p>
      )}
      <p className="note" data-testid="estimate-bound">
        The calls are an upper bound: racing drops a proposal that cannot win after half its
        minibatch, and a candidate&apos;s result on a row already known in the run is not asked for
        again (retries and failed parses add calls). {lmModules} LM module(s) per prediction.
      </p>
      <p className="note" data-testid="estimate-detectable">
        {detectableSentence(estimate.testRows)}
      </p>
    </div>
  );
}
