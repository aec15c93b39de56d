import { FormField } from '@/lib/components/FormField';
import type { RewardChoice } from '../../model/runConfig';
import { CheckboxGroup } from './CheckboxGroup';

/** The reward (from `rewards`), its criteria for a judge, and which output fields it compares. */
export function RewardChooser({
  rewards,
  outputFields,
  value,
  onChange,
}: {
  rewards: readonly string[];
  /** The dataset's output fields, for the masks. */
  outputFields: string[];
  value: RewardChoice;
  onChange: (value: RewardChoice) => void;
}) {
  const set = (patch: Partial<RewardChoice>) => onChange({ ...value, ...patch });
  return (
    <>
      <FormField label="Reward" id="run-reward">
        {(control) => (
          <select
            {...control}
            className="select"
            value={value.name}
            onChange={(e) => set({ name: e.target.value })}
          >
            {rewards.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        )}
      </FormField>
      {value.name === 'LMAsJudge' && (
        <FormField label="Criteria" id="run-criteria">
          {(control) => (
            <input
              {...control}
              className="input"
              value={value.criteria}
              onChange={(e) => set({ criteria: e.target.value })}
            />
          )}
        </FormField>
      )}
      <CheckboxGroup
        label="Compare only (in_mask)"
        name="in_mask"
        options={outputFields}
        picked={value.inMask}
        onChange={(inMask) => set({ inMask })}
        empty={<span className="note">all fields</span>}
      />
      <CheckboxGroup
        label="Ignore (out_mask)"
        name="out_mask"
        options={outputFields}
        picked={value.outMask}
        onChange={(outMask) => set({ outMask })}
      />
    </>
  );
}
