import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { useDatasets } from '@/lib/api/ops/datasetsList';
import { usePrograms } from '@/lib/api/ops/programsList';
import { useVersion } from '@/lib/api/ops/programsVersionsRetrieve';
import { useVersions } from '@/lib/api/ops/programsVersionsList';
import { useProviders } from '@/lib/api/ops/providersList';
import { useCreateRun } from './api/runsCreate';
import { CallEstimate } from './components/setup/CallEstimate';
import { MetricsChooser } from './components/setup/MetricsChooser';
import { OptimizerChooser } from './components/setup/OptimizerChooser';
import { ParamFields } from './components/setup/ParamFields';
import { Problems } from './components/setup/Problems';
import { RewardChooser } from './components/setup/RewardChooser';
import { RunTargetFields } from './components/setup/RunTargetFields';
import {
  compileConfig,
  FIT_PARAMS,
  optimizerDefaults,
  parseParams,
  RUN_CATALOGUE,
  sectionOf,
  startingFitForm,
  type OptimizerForm,
  type RewardChoice,
} from './model/runConfig';
import {
  emptyTarget,
  fieldsOf,
  pickedProgram,
  programShape,
  resolveTarget,
  runEstimate,
  type RunTarget,
} from './model/runSetup';

// What the choosers offer; a server-side catalogue will replace this constant.
const catalogue = RUN_CATALOGUE;

/** Run setup (route /runs/new): what to train, on what, how, and how many LM calls it takes. */
export default function NewRunPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const programs = usePrograms();
  const datasets = useDatasets();
  const providers = useProviders();
  const create = useCreateRun();

  const [target, setTarget] = useState<RunTarget>(() =>
    emptyTarget(params.get('program') ? Number(params.get('program')) : null),
  );
  const [reward, setReward] = useState<RewardChoice>(() => ({
    name: catalogue.rewards[0] ?? '',
    criteria: '',
    inMask: [],
    outMask: [],
  }));
  const [metrics, setMetrics] = useState<string[]>([]);
  const [optimizer, setOptimizer] = useState<OptimizerForm>(() =>
    optimizerDefaults(catalogue.optimizers[0]!),
  );
  const [fitForm, setFitForm] = useState(startingFitForm);

  const versions = useVersions(pickedProgram(target, programs.data ?? []));
  const resolved = resolveTarget(target, {
    programs: programs.data ?? [],
    versions: versions.data ?? [],
    datasets: datasets.data ?? [],
    providers: providers.data ?? [],
  });
  const { versionId, dataset, providerId } = resolved;
  const versionDetail = useVersion(resolved.programId, resolved.versionNumber);
  const shape = programShape(versionDetail.data?.document);

  const optimizerSpecs = catalogue.optimizers.find((o) => o.name === optimizer.name)?.params ?? [];
  const optimizerParsed = parseParams(optimizerSpecs, optimizer.values);
  const fitParsed = parseParams(FIT_PARAMS, fitForm);
  const estimate = runEstimate(dataset, shape, optimizer.name, fitParsed);

  const serverProblems = create.error instanceof ApiError ? create.error.problems : [];
  const bySection = (section: ReturnType<typeof sectionOf>) =>
    serverProblems.filter((p) => sectionOf(p.path) === section);
  const localErrors =
    Object.keys(optimizerParsed.errors).length + Object.keys(fitParsed.errors).length;
  const ready = versionId !== null && dataset !== null && providerId !== null && localErrors === 0;

  const launch = () => {
    if (!ready || versionId === null || !dataset || providerId === null) return;
    create.mutate(
      {
        name: target.name,
        program_version: versionId,
        dataset: dataset.id,
        provider: providerId,
        compile_config: compileConfig(reward, metrics, optimizer.name, optimizerParsed.values),
        fit_config: fitParsed.values,
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
      <div className="grid-2">
        <section className="card" aria-label="What to train">
          <h2>What to train</h2>
          <RunTargetFields
            target={target}
            resolved={resolved}
            programs={programs.data ?? []}
            versions={versions.data ?? []}
            onChange={(patch) => setTarget({ ...target, ...patch })}
          />
          <Problems problems={bySection('run')} />
        </section>

        <section className="card" aria-label="Reward and metrics">
          <h2>Reward and metrics</h2>
          <RewardChooser
            rewards={catalogue.rewards}
            outputFields={fieldsOf(dataset?.output_schema)}
            value={reward}
            onChange={setReward}
          />
          <Problems problems={bySection('reward')} />
          <MetricsChooser metrics={catalogue.metrics} value={metrics} onChange={setMetrics} />
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
            specs={FIT_PARAMS}
            values={fitForm}
            errors={fitParsed.errors}
            onChange={setFitForm}
          />
          <Problems problems={bySection('fit')} />
          <h2 style={{ marginTop: 12 }}>Estimated LM calls</h2>
          <CallEstimate estimate={estimate} lmModules={shape.lmModules} />
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
