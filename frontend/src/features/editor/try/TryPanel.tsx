import { useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useProviders } from '@/lib/api/ops/providersList';
import { ApiError } from '@/lib/api/errors';
import type { TryResult } from '@/lib/api/types';
import { useTryProgram } from '../api/programsTry';
import { graphToDocument, moduleName, ownDataModel, programEnds } from '../model/graph';
import { programProblems } from '../model/rules';
import { useEditorStore } from '../store/editorStore';
import { useServerProgram } from '../store/serverProgram';
import { useTryTrace } from '../store/tryTrace';
import styles from '../components/editor.module.css';
import {
  buildInput,
  initialValues,
  traceInGraphOrder,
  tryFields,
  type TryField,
  type TryValues,
} from './tryForm';

function pretty(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return JSON.stringify(value, null, 2);
}

function FieldControl({
  field,
  value,
  error,
  onChange,
}: {
  field: TryField;
  value: string | boolean;
  error?: string;
  onChange: (value: string | boolean) => void;
}) {
  const label = `${field.title}${field.required ? '' : ' (optional)'}`;
  const control =
    field.control === 'checkbox' ? (
      <input
        type="checkbox"
        aria-label={field.name}
        checked={value === true}
        onChange={(e) => onChange(e.target.checked)}
      />
    ) : field.control === 'json' ? (
      <textarea
        className="textarea mono"
        aria-label={field.name}
        rows={3}
        placeholder="JSON"
        value={String(value)}
        onChange={(e) => onChange(e.target.value)}
      />
    ) : (
      <input
        className="input"
        aria-label={field.name}
        type={field.control === 'text' ? 'text' : 'number'}
        step={field.control === 'integer' ? 1 : 'any'}
        value={String(value)}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  return (
    <label className={styles.field}>
      <span className={styles.fieldLabel}>{label}</span>
      {control}
      {field.description && <span className={styles.hint}>{field.description}</span>}
      {error && (
        <span className={styles.tryError} role="alert">
          {field.name}: {error}
        </span>
      )}
    </label>
  );
}

/** The result of a try: latency, tokens, and each module's input and output (or error). */
export function TryResultView({
  result,
  moduleOrder,
}: {
  result: TryResult;
  moduleOrder: string[];
}) {
  const focus = (module: string | null) => useTryTrace.setState({ focused: module });
  const usage = result.usage as Record<string, unknown>;
  const tokens = typeof usage.total_tokens === 'number' ? usage.total_tokens : null;
  const calls = typeof usage.calls === 'number' ? usage.calls : null;
  return (
    <div aria-label="Try result">
      <p className={styles.hint} data-testid="try-stats">
        {result.latency_s.toFixed(2)} s{tokens !== null && ` · ${tokens} tokens`}
        {calls !== null && ` · ${calls} LM call${calls === 1 ? '' : 's'}`}
      </p>
      {traceInGraphOrder(result.trace, moduleOrder).map((entry, i) => (
        <section
          key={`${entry.module}-${i}`}
          className={`${styles.traceEntry} ${entry.error ? styles.traceFailed : ''}`}
          aria-label={`Trace ${entry.module}`}
          tabIndex={0}
          onMouseEnter={() => focus(entry.module)}
          onMouseLeave={() => focus(null)}
          onFocus={() => focus(entry.module)}
          onBlur={() => focus(null)}
        >
          <h3 className={styles.sectionTitle}>{entry.module}</h3>
          <span className={styles.fieldLabel}>Input</span>
          <pre className={styles.tracePre}>{pretty(entry.inputs)}</pre>
          <span className={styles.fieldLabel}>Output</span>
          <pre className={styles.tracePre}>{pretty(entry.outputs)}</pre>
          {entry.error && (
            <p className={styles.tryError} role="alert">
              {entry.error}
            </p>
          )}
        </section>
      ))}
    </div>
  );
}

/** "Try it": run the program on the canvas (unsaved edits included) once on one input. */
export function TryPanel({ onClose }: { onClose: () => void }) {
  const programId = useServerProgram((s) => s.programId);
  const { nodes, edges, meta } = useEditorStore(
    useShallow((s) => ({ nodes: s.nodes, edges: s.edges, meta: s.meta })),
  );
  const forms = useMemo(
    () =>
      programEnds({ nodes, edges, meta }).inputs.map((n) => ({
        name: moduleName(n),
        fields: tryFields(ownDataModel(n)?.schema ?? {}),
      })),
    [nodes, edges, meta],
  );
  const [values, setValues] = useState<Record<string, TryValues>>({});
  const [errors, setErrors] = useState<Record<string, Record<string, string>>>({});
  const providers = useProviders();
  const languageProviders = (providers.data ?? []).filter((p) => p.kind !== 'embedding');
  const [providerId, setProviderId] = useState<number | null>(null);
  const chosen =
    providerId ??
    languageProviders.find((p) => p.is_default)?.id ??
    languageProviders[0]?.id ??
    null;
  const run = useTryProgram(programId);
  const [moduleOrder, setModuleOrder] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);

  const valuesOf = (form: { name: string; fields: TryField[] }) =>
    values[form.name] ?? initialValues(form.fields);

  const submit = () => {
    setProblem(null);
    const state = useEditorStore.getState();
    const problems = programProblems(state);
    if (problems.length > 0) {
      setProblem(`Fix the program first: ${problems[0]?.message}`);
      return;
    }
    const built = forms.map((form) => buildInput(form.fields, valuesOf(form)));
    const nextErrors: Record<string, Record<string, string>> = {};
    built.forEach((b, i) => {
      if (!b.ok) nextErrors[forms[i]?.name ?? ''] = b.errors;
    });
    setErrors(nextErrors);
    if (Object.keys(nextErrors).length > 0) return;
    const objects = built.map((b) => (b.ok ? b.value : {}));
    const { document } = graphToDocument(state);
    setModuleOrder(document.program.modules.map((m) => m.name));
    useTryTrace.setState({ status: {}, focused: null });
    run.mutate(
      {
        input: objects.length === 1 ? objects[0] : objects,
        document,
        ...(chosen !== null ? { provider: chosen } : {}),
      },
      {
        onSuccess: (result) => {
          const status: Record<string, 'ok' | 'error'> = {};
          for (const entry of result.trace) {
            // A module that did not run (a branch not taken) gets no mark.
            if (!entry.skipped) status[entry.module] = entry.error ? 'error' : 'ok';
          }
          useTryTrace.setState({ status });
        },
      },
    );
  };

  const close = () => {
    useTryTrace.setState({ status: {}, focused: null });
    onClose();
  };

  const failure =
    run.error instanceof ApiError
      ? run.error.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ')
      : run.error
        ? run.error.message
        : null;

  return (
    <aside className={styles.inspector} aria-label="Try it">
      <section className={styles.section}>
        <div className={styles.row}>
          <h2 className={styles.panelTitle}>Try it</h2>
          <button type="button" className="btn btn-small" onClick={close}>
            Close
          </button>
        </div>
        {programId === null ? (
          <p className="note" role="note">
            Save the program first: Try it runs a saved program (with your unsaved edits).
          </p>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
          >
            {forms.map((form) => (
              <fieldset key={form.name} className={styles.tryFieldset}>
                {forms.length > 1 && <legend>{form.name}</legend>}
                {form.fields.length === 0 && <p className={styles.hint}>No fields.</p>}
                {form.fields.map((field) => (
                  <FieldControl
                    key={field.name}
                    field={field}
                    value={valuesOf(form)[field.name] ?? ''}
                    error={errors[form.name]?.[field.name]}
                    onChange={(value) =>
                      setValues((all) => ({
                        ...all,
                        [form.name]: { ...valuesOf(form), [field.name]: value },
                      }))
                    }
                  />
                ))}
              </fieldset>
            ))}
            <label className={styles.field}>
              <span className={styles.fieldLabel}>Provider</span>
              <select
                className="select"
                aria-label="Try provider"
                value={chosen ?? ''}
                onChange={(e) => setProviderId(Number(e.target.value))}
                disabled={languageProviders.length === 0}
              >
                {languageProviders.length === 0 && <option value="">no provider yet</option>}
                {languageProviders.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                    {p.is_default ? ' (default)' : ''}
                  </option>
                ))}
              </select>
            </label>
            {providers.isSuccess && languageProviders.length === 0 && (
              <p className={styles.hint}>Add a language provider first (Providers page).</p>
            )}
            <button
              type="submit"
              className="btn btn-primary"
              disabled={run.isPending || chosen === null}
            >
              {run.isPending ? 'Running…' : 'Run'}
            </button>
          </form>
        )}
        {problem && (
          <p className={styles.tryError} role="alert">
            {problem}
          </p>
        )}
        {failure && (
          <p className={styles.tryError} role="alert">
            {failure}
          </p>
        )}
      </section>
      {run.data && (
        <section className={styles.section}>
          <TryResultView result={run.data} moduleOrder={moduleOrder} />
        </section>
      )}
    </aside>
  );
}
