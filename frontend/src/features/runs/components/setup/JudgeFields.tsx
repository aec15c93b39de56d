import { useVersions } from '@/lib/api/ops/programsVersionsList';
import { useVersion } from '@/lib/api/ops/programsVersionsRetrieve';
import type { CatalogueEntry, CatalogueScoreType, Provider } from '@/lib/api/types';
import { FormField } from '@/lib/components/FormField';
import type { FormValues } from '../../model/runConfig';
import {
  documentOutputFields,
  judgeRefusal,
  takesProgram,
  takesProvider,
  type JudgeForm,
} from './judge';
import { ProviderPicker } from './ProviderPicker';

/**
 * A judge's own fields: the criteria (a textarea) and the scale of an LM judge, the
 * provider the judge calls (the run's unless another is picked), and for a program as
 * judge one of the user's programs at a version, refused here already when its output
 * has no `reward` field.
 */
export function JudgeFields({
  idPrefix,
  entry,
  values,
  judge,
  providers,
  programs,
  scoreTypes,
  errors,
  onValues,
  onJudge,
}: {
  idPrefix: string;
  entry: CatalogueEntry;
  values: FormValues;
  judge: JudgeForm;
  providers: Provider[];
  programs: { id: number; name: string }[];
  scoreTypes: CatalogueScoreType[];
  /** By key: `criteria`, `score_type` (the form's), `provider`, `program` (the server's). */
  errors: Record<string, string | undefined>;
  onValues: (values: FormValues) => void;
  onJudge: (judge: JudgeForm) => void;
}) {
  const param = (name: string) => entry.params.find((p) => p.name === name);
  const hasParam = (name: string) => param(name) !== undefined;
  const versions = useVersions(takesProgram(entry) ? judge.programId : null);
  const version = useVersion(
    takesProgram(entry) ? judge.programId : null,
    judge.versionId !== null ? judge.versionNumber : null,
  );
  const programName = programs.find((p) => p.id === judge.programId)?.name ?? 'the program';
  const refusal = version.data
    ? judgeRefusal(
        `${programName} v${judge.versionNumber}`,
        documentOutputFields(version.data.document),
      )
    : null;
  return (
    <>
      {hasParam('criteria') && (
        <FormField
          label={param('criteria')?.label ?? 'Criteria'}
          id={`${idPrefix}-criteria`}
          error={errors.criteria}
        >
          {(control) => (
            <textarea
              {...control}
              className="input"
              rows={3}
              placeholder="none: correctness and completeness against the expected output"
              value={String(values.criteria ?? '')}
              onChange={(e) => onValues({ ...values, criteria: e.target.value })}
            />
          )}
        </FormField>
      )}
      {hasParam('score_type') && (
        <FormField
          label={param('score_type')?.label ?? 'Scale'}
          id={`${idPrefix}-score_type`}
          error={errors.score_type}
        >
          {(control) => (
            <select
              {...control}
              className="select"
              value={String(values.score_type ?? '')}
              onChange={(e) => onValues({ ...values, score_type: e.target.value })}
            >
              {scoreTypes.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.label}
                </option>
              ))}
            </select>
          )}
        </FormField>
      )}
      {takesProgram(entry) && (
        <>
          <FormField label="Judge program" id={`${idPrefix}-judge-program`}>
            {(control) => (
              <select
                {...control}
                className="select"
                value={judge.programId ?? ''}
                onChange={(e) =>
                  onJudge({
                    ...judge,
                    programId: e.target.value ? Number(e.target.value) : null,
                    versionNumber: null,
                    versionId: null,
                  })
                }
              >
                <option value="">choose a program</option>
                {programs.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            )}
          </FormField>
          <FormField
            label="Judge version"
            id={`${idPrefix}-judge-version`}
            error={refusal ?? errors.program}
          >
            {(control) => (
              <select
                {...control}
                className="select"
                value={judge.versionId ?? ''}
                onChange={(e) => {
                  const picked = (versions.data ?? []).find((v) => v.id === Number(e.target.value));
                  onJudge({
                    ...judge,
                    versionId: picked?.id ?? null,
                    versionNumber: picked?.number ?? null,
                  });
                }}
              >
                <option value="">choose a version</option>
                {(versions.data ?? []).map((v) => (
                  <option key={v.id} value={v.id}>
                    v{v.number}
                  </option>
                ))}
              </select>
            )}
          </FormField>
        </>
      )}
      {takesProvider(entry) && (
        <>
          <ProviderPicker
            id={`${idPrefix}-judge-provider`}
            label="Judge provider"
            providers={providers}
            value={judge.providerId}
            none="the run's provider"
            onChange={(providerId) => onJudge({ ...judge, providerId })}
          />
          {errors.provider && <div className="field-error">{errors.provider}</div>}
        </>
      )}
    </>
  );
}
