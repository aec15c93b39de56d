import type {
  CatalogueComparison,
  CatalogueEntry,
  CatalogueScoreType,
  Provider,
} from '@/lib/api/types';
import type { EntryForm } from '../../model/runConfig';
import { rulesParam } from './configuredEntry';
import { FieldRulesBuilder } from './FieldRulesBuilder';
import { NO_JUDGE, takesProvider } from './judge';
import { JudgeFields } from './JudgeFields';

/** What the builders need besides the entry: the lists they pick from. */
export type BuilderChoices = {
  outputFields: string[];
  comparisons: CatalogueComparison[];
  scoreTypes: CatalogueScoreType[];
  providers: Provider[];
  programs: { id: number; name: string }[];
};

/**
 * The field rules builder and the judge's fields of a reward or metric, where its entry
 * has them; errors by rule key (`0.tolerance`) and judge key (`criteria`, `provider`...).
 */
export function EntryBuilders({
  idPrefix,
  entry,
  form,
  choices,
  ruleErrors,
  judgeErrors,
  onChange,
}: {
  idPrefix: string;
  entry: CatalogueEntry | undefined;
  form: EntryForm;
  choices: BuilderChoices;
  ruleErrors: Record<string, string>;
  judgeErrors: Record<string, string | undefined>;
  onChange: (form: EntryForm) => void;
}) {
  if (!entry) return null;
  return (
    <>
      {rulesParam(entry) && (
        <FieldRulesBuilder
          idPrefix={idPrefix}
          rules={form.rules ?? []}
          comparisons={choices.comparisons}
          outputFields={choices.outputFields}
          errors={ruleErrors}
          onChange={(rules) => onChange({ ...form, rules })}
        />
      )}
      {takesProvider(entry) && (
        <JudgeFields
          idPrefix={idPrefix}
          entry={entry}
          values={form.values}
          judge={form.judge ?? NO_JUDGE}
          providers={choices.providers}
          programs={choices.programs}
          scoreTypes={choices.scoreTypes}
          errors={judgeErrors}
          onValues={(values) => onChange({ ...form, values })}
          onJudge={(judge) => onChange({ ...form, judge })}
        />
      )}
    </>
  );
}
