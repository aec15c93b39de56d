import { Link } from 'react-router';
import { FormField } from '@/lib/components/FormField';
import { useScorers, useScorerVersions } from '@/lib/api/ops/scorers';
import type { CodeChoice, CodePick } from '../../model/codeRewards';

/**
 * The run form's code rewards and metrics (the library's, /rewards): score with your own
 * code instead of the reward above, and log code metrics beside the others. A version left
 * at "newest" is pinned by the server when the run starts.
 */
export function CodeRewardPicker({
  value,
  onChange,
}: {
  value: CodeChoice;
  onChange: (value: CodeChoice) => void;
}) {
  const scorers = useScorers();
  const all = scorers.data ?? [];
  const rewards = all.filter((s) => s.kind === 'reward');
  const picked = value.reward ? rewards.find((s) => s.name === value.reward?.name) : undefined;
  const versions = useScorerVersions(picked?.id ?? null);
  const metricNames = value.metrics.map((m) => m.name);
  if (scorers.isSuccess && all.length === 0)
    return (
      <p className="note">
        Your own reward in Python: write one under <Link to="/rewards">Rewards</Link>.
      </p>
    );
  const setReward = (reward: CodePick | null) => onChange({ ...value, reward });
  return (
    <fieldset aria-label="Code rewards">
      <FormField
        label="Reward from your code"
        hint="replaces the reward above (its masks carry over); runs in the sandbox"
      >
        {(control) => (
          <select
            {...control}
            className="select"
            value={value.reward?.name ?? ''}
            onChange={(e) =>
              setReward(e.target.value ? { name: e.target.value, version: null } : null)
            }
          >
            <option value="">None: the reward above</option>
            {rewards.map((s) => (
              <option key={s.id} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
        )}
      </FormField>
      {value.reward && (
        <FormField label="Its version">
          {(control) => (
            <select
              {...control}
              className="select"
              value={value.reward?.version ?? ''}
              onChange={(e) =>
                setReward({
                  name: value.reward!.name,
                  version: e.target.value ? Number(e.target.value) : null,
                })
              }
            >
              <option value="">Newest</option>
              {(versions.data ?? []).map((v) => (
                <option key={v.number} value={v.number}>
                  v{v.number}
                  {v.message ? ` · ${v.message}` : ''}
                </option>
              ))}
            </select>
          )}
        </FormField>
      )}
      {all.length > 0 && (
        <FormField label="Metrics from your code" group>
          {() => (
            <div role="group" aria-label="Metrics from your code">
              {all.map((s) => (
                <label key={s.id}>
                  <input
                    type="checkbox"
                    checked={metricNames.includes(s.name)}
                    onChange={(e) =>
                      onChange({
                        ...value,
                        metrics: e.target.checked
                          ? [...value.metrics, { name: s.name, version: null }]
                          : value.metrics.filter((m) => m.name !== s.name),
                      })
                    }
                  />{' '}
                  {s.name} <span className="note">({s.kind}, newest version)</span>
                </label>
              ))}
            </div>
          )}
        </FormField>
      )}
    </fieldset>
  );
}
