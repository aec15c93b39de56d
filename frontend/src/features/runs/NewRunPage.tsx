import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, type FieldProblem } from '@/lib/api/errors';
import { useDatasets } from '@/lib/api/ops/datasetsList';
import { usePrograms } from '@/lib/api/ops/programsList';
import { useVersion } from '@/lib/api/ops/programsVersionsRetrieve';
import { useVersions } from '@/lib/api/ops/programsVersionsList';
import { useProviders } from '@/lib/api/ops/providersList';
import { useCreateRun } from './api/runsCreate';
import { ParamFields } from './components/ParamFields';
import { ProviderPicker } from './components/ProviderPicker';
import { estimateCalls } from './model/estimate';
import {
  compileConfig,
  defaults,
  FIT_PARAMS,
  METRICS,
  OPTIMIZER_PARAMS,
  parseParams,
  REWARDS,
  sectionOf,
  type FormValues,
  type OptimizerName,
} from './model/runConfig';

const LM_MODULES = new Set(['Generator', 'ChainOfThought']);

function fieldsOf(schema: unknown): string[] {
  const properties = (schema as { properties?: object } | null)?.properties;
  return properties ? Object.keys(properties) : [];
}

function toggle(list: string[], item: string): string[] {
  return list.includes(item) ? list.filter((x) => x !== item) : [...list, item];
}

function Problems({ problems }: { problems: FieldProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <div className="alert" role="alert">
      {problems.map((p) => (
        <div key={`${p.path}:${p.message}`}>
          {p.path && <span className="mono">{p.path}: </span>}
          {p.message}
        </div>
      ))}
    </div>
  );
}

/** Run setup (route /runs/new): what to train, on what, how, and how many LM calls it takes. */
export default function NewRunPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const programs = usePrograms();
  const datasets = useDatasets();
  const providers = useProviders();
  const create = useCreateRun();

  const [programId, setProgramId] = useState<number | null>(
    params.get('program') ? Number(params.get('program')) : null,
  );
  const program = programId ?? programs.data?.[0]?.id ?? null;
  const versions = useVersions(program);
  const [versionNumber, setVersionNumber] = useState<number | null>(null);
  const version = versionNumber ?? versions.data?.[0]?.number ?? null;
  const versionDetail = useVersion(program, version);
  const versionId = versions.data?.find((v) => v.number === version)?.id ?? null;

  const validDatasets = (datasets.data ?? []).filter((d) => d.status === 'valid');
  const [datasetId, setDatasetId] = useState<number | null>(null);
  const dataset = validDatasets.find((d) => d.id === datasetId) ?? validDatasets[0] ?? null;
  const [providerId, setProviderId] = useState<number | null>(null);
  const provider =
    providerId ??
    providers.data?.find((p) => p.kind === 'language' && p.is_default)?.id ??
    providers.data?.[0]?.id ??
    null;

  const [name, setName] = useState('');
  const [reward, setReward] = useState<string>('ExactMatch');
  const [criteria, setCriteria] = useState('');
  const [inMask, setInMask] = useState<string[]>([]);
  const [outMask, setOutMask] = useState<string[]>([]);
  const [metrics, setMetrics] = useState<string[]>([]);
  const [optimizer, setOptimizer] = useState<OptimizerName>('RandomFewShot');
  const [optimizerForm, setOptimizerForm] = useState(() => ({
    RandomFewShot: defaults(OPTIMIZER_PARAMS.RandomFewShot),
    OMEGA: defaults(OPTIMIZER_PARAMS.OMEGA),
  }));
  const [fitForm, setFitForm] = useState<FormValues>(() => ({
    ...defaults(FIT_PARAMS),
    epochs: '2',
    batch_size: '8',
    evaluations: '1',
  }));

  const optimizerParsed = parseParams(OPTIMIZER_PARAMS[optimizer], optimizerForm[optimizer]);
  const fitParsed = parseParams(FIT_PARAMS, fitForm);
  const outputFields = fieldsOf(dataset?.output_schema);

  const doc = versionDetail.data?.document as
    | { program?: { modules?: { module?: { class_name?: string } }[] }; variables?: object }
    | undefined;
  const lmModules =
    doc?.program?.modules?.filter((m) => LM_MODULES.has(m.module?.class_name ?? '')).length ?? 1;
  const trainableVariables = doc?.variables ? Object.keys(doc.variables).length : 1;
  const estimate = (() => {
    const fit = fitParsed.values;
    if (!dataset || Object.keys(fitParsed.errors).length) return null;
    return estimateCalls({
      rows: dataset.row_count,
      testFraction: dataset.test_fraction,
      lmModules,
      trainableVariables,
      optimizer,
      epochs: Number(fit.epochs),
      batchSize: Number(fit.batch_size),
      validationSplit: Number(fit.validation_split),
      evaluations: Number(fit.evaluations),
    });
  })();

  const serverProblems = create.error instanceof ApiError ? create.error.problems : [];
  const bySection = (section: ReturnType<typeof sectionOf>) =>
    serverProblems.filter((p) => sectionOf(p.path) === section);
  const localErrors =
    Object.keys(optimizerParsed.errors).length + Object.keys(fitParsed.errors).length;
  const ready = versionId !== null && dataset !== null && provider !== null && localErrors === 0;

  const launch = () => {
    if (!ready || versionId === null || !dataset || provider === null) return;
    create.mutate(
      {
        name,
        program_version: versionId,
        dataset: dataset.id,
        provider,
        compile_config: compileConfig(
          { name: reward, inMask, outMask, criteria },
          metrics,
          optimizer,
          optimizerParsed.values,
        ),
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
          <div className="form-row">
            <label htmlFor="run-name">Run name</label>
            <input
              id="run-name"
              className="input"
              placeholder="optional"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="form-row">
            <label htmlFor="run-program">Program</label>
            <select
              id="run-program"
              className="select"
              value={program ?? ''}
              onChange={(e) => {
                setProgramId(Number(e.target.value));
                setVersionNumber(null);
              }}
            >
              {(programs.data ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </div>
          <div className="form-row">
            <label htmlFor="run-version">Version</label>
            <select
              id="run-version"
              className="select"
              value={version ?? ''}
              onChange={(e) => setVersionNumber(Number(e.target.value))}
            >
              {(versions.data ?? []).map((v) => (
                <option key={v.id} value={v.number}>
                  v{v.number}
                  {v.message ? ` — ${v.message}` : ''}
                </option>
              ))}
            </select>
          </div>
          <div className="form-row">
            <label htmlFor="run-dataset">Dataset</label>
            <select
              id="run-dataset"
              className="select"
              value={dataset?.id ?? ''}
              onChange={(e) => setDatasetId(Number(e.target.value))}
            >
              {validDatasets.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} ({d.row_count} rows)
                </option>
              ))}
            </select>
            {validDatasets.length === 0 && (
              <div className="field-error">No valid dataset yet: upload one first.</div>
            )}
          </div>
          <ProviderPicker
            providers={(providers.data ?? []).filter((p) => p.kind === 'language')}
            value={provider}
            onChange={setProviderId}
          />
          <Problems problems={bySection('run')} />
        </section>

        <section className="card" aria-label="Reward and metrics">
          <h2>Reward and metrics</h2>
          <div className="form-row">
            <label htmlFor="run-reward">Reward</label>
            <select
              id="run-reward"
              className="select"
              value={reward}
              onChange={(e) => setReward(e.target.value)}
            >
              {REWARDS.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </div>
          {reward === 'LMAsJudge' && (
            <div className="form-row">
              <label htmlFor="run-criteria">Criteria</label>
              <input
                id="run-criteria"
                className="input"
                value={criteria}
                onChange={(e) => setCriteria(e.target.value)}
              />
            </div>
          )}
          <div className="form-row">
            <span className="note">Compare only (in_mask)</span>
            <div role="group" aria-label="in_mask">
              {outputFields.map((f) => (
                <label key={f} style={{ marginRight: 10 }}>
                  <input
                    type="checkbox"
                    checked={inMask.includes(f)}
                    onChange={() => setInMask(toggle(inMask, f))}
                  />{' '}
                  {f}
                </label>
              ))}
              {outputFields.length === 0 && <span className="note">all fields</span>}
            </div>
          </div>
          <div className="form-row">
            <span className="note">Ignore (out_mask)</span>
            <div role="group" aria-label="out_mask">
              {outputFields.map((f) => (
                <label key={f} style={{ marginRight: 10 }}>
                  <input
                    type="checkbox"
                    checked={outMask.includes(f)}
                    onChange={() => setOutMask(toggle(outMask, f))}
                  />{' '}
                  {f}
                </label>
              ))}
            </div>
          </div>
          <Problems problems={bySection('reward')} />
          <div className="form-row">
            <span className="note">Metrics</span>
            <div role="group" aria-label="Metrics">
              {METRICS.map((m) => (
                <label key={m} style={{ marginRight: 10 }}>
                  <input
                    type="checkbox"
                    checked={metrics.includes(m)}
                    onChange={() => setMetrics(toggle(metrics, m))}
                  />{' '}
                  {m}
                </label>
              ))}
            </div>
          </div>
          <Problems problems={bySection('metrics')} />
        </section>

        <section className="card" aria-label="Optimizer">
          <h2>Optimizer</h2>
          <div className="form-row">
            <label htmlFor="run-optimizer">Optimizer</label>
            <select
              id="run-optimizer"
              className="select"
              value={optimizer}
              onChange={(e) => setOptimizer(e.target.value as OptimizerName)}
            >
              <option value="RandomFewShot">RandomFewShot</option>
              <option value="OMEGA">OMEGA</option>
            </select>
          </div>
          <ParamFields
            idPrefix={`opt-${optimizer}`}
            specs={OPTIMIZER_PARAMS[optimizer]}
            values={optimizerForm[optimizer]}
            errors={optimizerParsed.errors}
            onChange={(values) => setOptimizerForm({ ...optimizerForm, [optimizer]: values })}
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
          {estimate ? (
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
            </div>
          ) : (
            <p className="note">Choose a dataset and valid fit settings.</p>
          )}
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
