import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { useDatasets } from '@/lib/api/ops/datasetsList';
import { useDatasetVersions } from '@/lib/api/ops/datasetsVersionsList';
import { usePrograms } from '@/lib/api/ops/programsList';
import { useVersion } from '@/lib/api/ops/programsVersionsRetrieve';
import { useVersions } from '@/lib/api/ops/programsVersionsList';
import { useProviders } from '@/lib/api/ops/providersList';
import type { Catalogue, CatalogueEntry } from '@/lib/api/types';
import { useCatalogue } from './api/catalogue';
import { useCreateRun } from './api/runsCreate';
import { useThroughput } from './api/runsThroughput';
import { CallEstimate } from './components/setup/CallEstimate';
import { EarlyStoppingFields } from './components/setup/EarlyStoppingFields';
import { CodeRewardPicker } from './components/setup/CodeRewardPicker';
import { MetricsChooser } from './components/setup/MetricsChooser';
import { OptimizerChooser } from './components/setup/OptimizerChooser';
import { ParamFields } from './components/setup/ParamFields';
import { Problems } from './components/setup/Problems';
import { configuredEntry } from './components/setup/configuredEntry';
import { serverRuleErrors } from './components/setup/fieldRules';
import { serverJudgeErrors } from './components/setup/judge';
import { RewardChooser } from './components/setup/RewardChooser';
import { RunTargetFields } from './components/setup/RunTargetFields';
import { capsOf } from './model/budget';
import {
  EARLY_STOPPING_OFF,
  monitorChoices,
  parseEarlyStopping,
  type EarlyStoppingForm,
} from './model/earlyStopping';
import {
  compileConfig,
  entryDefaults,
  findEntry,
  metricValues,
  parseParams,
  sectionOf,
  startingFitForm,
  type EntryForm,
  type FormValues,
} from './model/runConfig';
import { NO_CODE, withCodeRewards, type CodeChoice } from './model/codeRewards';
import {
  emptyTarget,
  fieldsOf,
  pickedDatasetVersion,
  pickedProgram,
  programShape,
  resolveTarget,
  runEstimate,
  type RunTarget,
} from './model/runSetup';

/** Until the catalogue arrives the choosers have nothing to offer. */
const NO_CATALOGUE: Catalogue = {
  rewards: [],
  metrics: [],
  optimizers: [],
  fit: [],
  comparisons: [],
  score_types: [],
};

const noErrors = (parsed: { errors: Record<string, string> }) =>
  Object.keys(parsed.errors).length === 0;

/** The first entry with its defaults: what a chooser starts from. */
function firstOf(entries: CatalogueEntry[]): EntryForm {
  return entries[0] ? entryDefaults(entries[0]) : { name: '', values: {} };
}

/**
 * Run setup (route /runs/new): what to train, on what, how, and how many LM calls it takes.
 * The reward, metric and optimizer choosers and the fit settings are built from the
 * catalogue (GET /api/catalogue/): each entry's declared settings, nothing known by name.
 */
export default function NewRunPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const catalogueQuery = useCatalogue();
  const catalogue = catalogueQuery.data ?? NO_CATALOGUE;
  const programs = usePrograms();
  const datasets = useDatasets();
  const providers = useProviders();
  const create = useCreateRun();

  const [target, setTarget] = useState<RunTarget>(() =>
    emptyTarget(params.get('program') ? Number(params.get('program')) : null),
  );
  // null: not touched yet, the catalogue's first entry (or defaults) applies.
  const [rewardPick, setReward] = useState<EntryForm | null>(null);
  const [metrics, setMetrics] = useState<EntryForm[]>([]);
  const [optimizerPick, setOptimizer] = useState<EntryForm | null>(null);
  const [fitPick, setFitForm] = useState<FormValues | null>(null);
  const [earlyForm, setEarlyForm] = useState<EarlyStoppingForm>(EARLY_STOPPING_OFF);
  const [code, setCode] = useState<CodeChoice>(NO_CODE);
  const reward = rewardPick ?? firstOf(catalogue.rewards);
  const optimizer = optimizerPick ?? firstOf(catalogue.optimizers);
  const fitForm = fitPick ?? startingFitForm(catalogue.fit);

  const versions = useVersions(pickedProgram(target, programs.data ?? []));
  const resolved = resolveTarget(target, {
    programs: programs.data ?? [],
    versions: versions.data ?? [],
    datasets: datasets.data ?? [],
    providers: providers.data ?? [],
  });
  const { versionId, dataset, providerId } = resolved;
  const datasetVersions = useDatasetVersions(dataset?.id ?? null);
  const datasetVersion = pickedDatasetVersion(target.datasetVersion, datasetVersions.data ?? []);
  const versionDetail = useVersion(resolved.programId, resolved.versionNumber);
  const shape = programShape(versionDetail.data?.document);

  const rewardEntry = findEntry(catalogue.rewards, reward.name);
  const rewardParsed = parseParams(rewardEntry?.params ?? [], reward.values);
  const metricsParsed = metrics.map((m) => {
    const entry = findEntry(catalogue.metrics, m.name);
    const values = entry ? metricValues(entry, m.values, rewardEntry, reward.values) : {};
    return { name: m.name, parsed: parseParams(entry?.params ?? [], values) };
  });
  const outputFields = fieldsOf(dataset?.output_schema);
  const rewardConfigured = configuredEntry(
    rewardEntry,
    reward,
    rewardParsed,
    catalogue.comparisons,
    outputFields,
  );
  const metricsConfigured = metrics.map((m, index) =>
    configuredEntry(
      findEntry(catalogue.metrics, m.name),
      m,
      metricsParsed[index]!.parsed,
      catalogue.comparisons,
      outputFields,
    ),
  );
  const optimizerEntry = findEntry(catalogue.optimizers, optimizer.name);
  // What this user's finished runs on the provider measured (those with the picked optimizer
  // first): duration, tokens, cost. Asked once the catalogue names the optimizer.
  const throughput = useThroughput(
    catalogueQuery.isSuccess ? providerId : null,
    resolved.programId,
    optimizerEntry ? optimizerEntry.name : null,
  );
  const optimizerParsed = parseParams(optimizerEntry?.params ?? [], optimizer.values);
  const fitParsed = parseParams(catalogue.fit, fitForm);
  const validationSplit = Number(fitParsed.values.validation_split ?? 0) || 0;
  const metricNames = metrics.map((m) => m.name);
  const earlyParsed = parseEarlyStopping(earlyForm, metricNames, validationSplit);
  const estimate = catalogueQuery.isSuccess
    ? runEstimate(
        // The version trained on holds the rows (an added version has more than the upload).
        dataset && datasetVersion ? { ...dataset, row_count: datasetVersion.row_count } : dataset,
        shape,
        optimizer.name,
        fitParsed,
      )
    : null;

  const serverProblems = create.error instanceof ApiError ? create.error.problems : [];
  const bySection = (section: ReturnType<typeof sectionOf>) =>
    serverProblems.filter((p) => sectionOf(p.path) === section);
  const valid =
    [
      rewardParsed,
      optimizerParsed,
      fitParsed,
      earlyParsed,
      ...metricsParsed.map((m) => m.parsed),
    ].every(noErrors) &&
    rewardConfigured.valid &&
    metricsConfigured.every((m) => m.valid);
  // The builders' errors: the form's own, else the server's at the same path.
  const builderChoices = {
    outputFields,
    comparisons: catalogue.comparisons,
    scoreTypes: catalogue.score_types,
    providers: resolved.providers,
    programs: programs.data ?? [],
  };
  const rewardRuleErrors = {
    ...serverRuleErrors(serverProblems, 'compile_config.reward.params'),
    ...rewardConfigured.ruleErrors,
  };
  const rewardJudgeErrors = {
    ...serverJudgeErrors(serverProblems, 'compile_config.reward'),
    ...(rewardConfigured.judgeError ? { program: rewardConfigured.judgeError } : {}),
  };
  const metricRuleErrors = Object.fromEntries(
    metricsConfigured.map((m, i) => [
      m.chosen.name,
      {
        ...serverRuleErrors(serverProblems, `compile_config.metrics[${i}].params`),
        ...m.ruleErrors,
      },
    ]),
  );
  const metricJudgeErrors = Object.fromEntries(
    metricsConfigured.map((m, i) => [
      m.chosen.name,
      {
        ...serverJudgeErrors(serverProblems, `compile_config.metrics[${i}]`),
        ...(m.judgeError ? { program: m.judgeError } : {}),
      },
    ]),
  );
  const ready =
    catalogueQuery.isSuccess &&
    versionId !== null &&
    dataset !== null &&
    providerId !== null &&
    valid;

  const launch = () => {
    if (!ready || versionId === null || !dataset || providerId === null) return;
    create.mutate(
      {
        name: target.name,
        program_version: versionId,
        dataset: dataset.id,
        ...(datasetVersion ? { dataset_version: datasetVersion.number } : {}),
        provider: providerId,
        compile_config: withCodeRewards(
          compileConfig(
            rewardConfigured.chosen,
            metricsConfigured.map((m) => m.chosen),
            { name: optimizer.name, params: optimizerParsed.values },
          ),
          code,
        ),
        fit_config: earlyParsed.value
          ? { ...fitParsed.values, early_stopping: earlyParsed.value }
          : fitParsed.values,
      },
      { onSuccess: (run) => navigate(`/runs/${run.id}`) },
    );
  };

  return (
    <form
      className="page"
      aria-label="New run"
      onSubmit={(e) => {
        e.preventDefault();
        launch();
      }}
    >
      <div className="page-head">
        <h1>New run</h1>
      </div>
      {catalogueQuery.isError && (
        <div className="alert" role="alert">
          What a run can use could not be loaded: {catalogueQuery.error.message}
        </div>
      )}
      <div className="grid-2">
        <section className="card" aria-label="What to train">
          <h2>What to train</h2>
          <RunTargetFields
            target={target}
            resolved={resolved}
            programs={programs.data ?? []}
            versions={versions.data ?? []}
            datasetVersions={datasetVersions.data ?? []}
            datasetVersion={datasetVersion}
            onChange={(patch) => setTarget({ ...target, ...patch })}
          />
          <Problems problems={bySection('run')} />
        </section>

        <section className="card" aria-label="Reward and metrics">
          <h2>Reward and metrics</h2>
          <RewardChooser
            rewards={catalogue.rewards}
            outputFields={outputFields}
            value={reward}
            errors={rewardParsed.errors}
            onChange={setReward}
            choices={builderChoices}
            ruleErrors={rewardRuleErrors}
            judgeErrors={rewardJudgeErrors}
          />
          <CodeRewardPicker value={code} onChange={setCode} />
          <Problems problems={bySection('reward')} />
          <MetricsChooser
            metrics={catalogue.metrics}
            reward={rewardEntry}
            value={metrics}
            errors={Object.fromEntries(metricsParsed.map((m) => [m.name, m.parsed.errors]))}
            choices={builderChoices}
            ruleErrors={metricRuleErrors}
            judgeErrors={metricJudgeErrors}
            onChange={setMetrics}
          />
          <Problems problems={bySection('metrics')} />
        </section>

        <section className="card" aria-label="Optimizer">
          <h2>Optimizer</h2>
          <OptimizerChooser
            optimizers={catalogue.optimizers}
            value={optimizer}
            errors={optimizerParsed.errors}
            onChange={setOptimizer}
          />
          <Problems problems={bySection('optimizer')} />
        </section>

        <section className="card" aria-label="Fit settings">
          <h2>Fit settings</h2>
          <ParamFields
            idPrefix="fit"
            specs={catalogue.fit}
            values={fitForm}
            errors={fitParsed.errors}
            onChange={setFitForm}
          />
          <EarlyStoppingFields
            value={earlyForm}
            parsed={earlyParsed}
            choices={monitorChoices(metricNames, validationSplit)}
            validationSplit={validationSplit}
            onChange={setEarlyForm}
          />
          <Problems problems={bySection('fit')} />
          <h2 style={{ marginTop: 12 }}>Estimated LM calls, time and cost</h2>
          <CallEstimate
            estimate={estimate}
            lmModules={shape.lmModules}
            caps={capsOf(fitParsed.values)}
            throughput={throughput.data ?? null}
            earlyStopping={earlyParsed.value !== null}
          />
        </section>
      </div>
      <div className="page-head">
        <span className="spacer" />
        <button type="submit" className="btn btn-primary" disabled={!ready || create.isPending}>
          {create.isPending ? 'Starting…' : 'Start run'}
        </button>
      </div>
    </form>
  );
}
