import { useShallow } from 'zustand/react/shallow';
import { schemaKeys } from '@/lib/datamodel/schema';
import { isJsonObject, type JsonObject } from '@/lib/json';
import { deleteSelection } from '../actions/deleteSelection';
import {
  setDataModel,
  setProgramOutput,
  updateModule,
  updateProgram,
  type ModulePatch,
} from '../actions/updateModule';
import { variableName, type Example } from '../model/document';
import {
  moduleName,
  ownDataModel,
  type DecisionNodeData,
  type GeneratorNodeData,
  type ProgramNode,
} from '../model/graph';
import { KindSettings } from './KindSettings';
import { SamplingSettings } from './SamplingSettings';
import { KIND_TEXT } from './nodes/kindText';
import { useProgramProblems } from '../hooks/useProgramProblems';
import { SHORTCUTS } from '../hooks/useKeyboardShortcuts';
import { useEditorStore } from '../store/editorStore';
import { CommitField } from './CommitField';
import styles from './editor.module.css';
import { useServerProgram } from '../store/serverProgram';

type Props = { onEditModel: (name: string | null) => void; onCopy: () => void };

/** The right panel: the program when nothing is selected, else the selected module. */
export function Inspector({ onEditModel, onCopy }: Props) {
  const selected = useEditorStore(useShallow((s) => s.nodes.filter((n) => n.selected)));
  return (
    <aside className={styles.inspector} aria-label="Inspector">
      <ServerProblems names={selected.map(moduleName)} />
      {selected.length === 0 && <ProgramInspector />}
      {selected.length === 1 && (
        <ModuleInspector key={selected[0]!.id} node={selected[0]!} onEditModel={onEditModel} />
      )}
      {selected.length > 1 && (
        <section className={styles.section}>
          <h2 className={styles.panelTitle}>{selected.length} modules selected</h2>
          <p className={styles.hint}>{selected.map(moduleName).join(', ')}</p>
          <div className={styles.row}>
            <button type="button" className="btn" onClick={onCopy}>
              Copy
            </button>
            <button
              type="button"
              className="btn btn-danger"
              onClick={() => useEditorStore.getState().run(deleteSelection, undefined)}
            >
              Delete
            </button>
          </div>
        </section>
      )}
    </aside>
  );
}

function Field({
  label,
  children,
  hint,
}: {
  label: string;
  children: React.ReactNode;
  hint?: string;
}) {
  return (
    <label className={styles.field}>
      <span className={styles.fieldLabel}>{label}</span>
      {children}
      {hint && <span className={styles.hint}>{hint}</span>}
    </label>
  );
}

function ProgramInspector() {
  const meta = useEditorStore((s) => s.meta);
  const problems = useProgramProblems();
  const counts = useEditorStore(
    useShallow((s) => ({
      modules: s.nodes.length,
      trainable: s.nodes.filter((n) => n.data.kind !== 'Input' && n.data.config.trainable).length,
    })),
  );
  const attempt = useEditorStore((s) => s.attempt);
  const select = useEditorStore((s) => s.select);
  return (
    <>
      <section className={styles.section}>
        <h2 className={styles.panelTitle}>Program</h2>
        <Field label="Name">
          <CommitField
            label="Program name"
            value={meta.name}
            onCommit={(name) => attempt(updateProgram, { name })}
          />
        </Field>
        <Field label="Description" hint="Optimizers that rewrite instructions (OMEGA) read it.">
          <CommitField
            label="Program description"
            multiline
            value={meta.description ?? ''}
            onCommit={(text) => attempt(updateProgram, { description: text.trim() ? text : null })}
          />
        </Field>
        <p className={styles.hint}>
          {counts.modules} module{counts.modules === 1 ? '' : 's'}, {counts.trainable} trainable.
          {meta.compileConfig ? ' Compiled settings are kept as loaded.' : ''}
        </p>
      </section>
      <section className={styles.section} aria-live="polite">
        <h2 className={styles.panelTitle}>
          Checks{' '}
          <span className={problems.length ? styles.badgeError : styles.badgeOk}>
            {problems.length ? problems.length : 'OK'}
          </span>
        </h2>
        {problems.length === 0 ? (
          <p className={styles.hint}>optimizer_core would build this program.</p>
        ) : (
          <ul className={styles.problems}>
            {problems.map((p, i) => (
              <li key={i}>
                {p.nodeId ? (
                  <button
                    type="button"
                    className={styles.linkButton}
                    onClick={() => select([p.nodeId as string])}
                  >
                    {p.message}
                  </button>
                ) : (
                  p.message
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className={styles.section}>
        <h2 className={styles.panelTitle}>Shortcuts</h2>
        <dl className={styles.shortcuts}>
          {SHORTCUTS.map((s) => (
            <div key={s.keys}>
              <dt>
                <kbd>{s.keys}</kbd>
              </dt>
              <dd>{s.label}</dd>
            </div>
          ))}
        </dl>
      </section>
    </>
  );
}

const KIND_TITLE = KIND_TEXT;

function ModuleInspector({
  node,
  onEditModel,
}: {
  node: ProgramNode;
  onEditModel: (name: string | null) => void;
}) {
  const attempt = useEditorStore((s) => s.attempt);
  const run = useEditorStore((s) => s.run);
  const library = useEditorStore((s) => s.dataModels);
  const { config } = node.data;
  const own = ownDataModel(node);
  const patch = (change: ModulePatch) => attempt(updateModule, { nodeId: node.id, config: change });
  const modelNames = library.map((m) => m.name);
  if (own && !modelNames.includes(own.name)) modelNames.unshift(own.name);
  const data = node.data;
  return (
    <>
      <section className={styles.section}>
        <h2 className={styles.panelTitle}>
          <span className={styles[`tag${node.data.kind}`] ?? styles.tagOther}>
            {KIND_TITLE[node.data.kind]}
          </span>
        </h2>
        <Field label="Name">
          <CommitField
            label="Module name"
            value={config.name}
            onCommit={(name) => patch({ name })}
          />
        </Field>
        <Field label="Description">
          <CommitField
            label="Module description"
            value={config.description ?? ''}
            onCommit={(text) => patch({ description: text.trim() ? text : null })}
          />
        </Field>
        {own && (
          <Field
            label={
              node.data.kind === 'Input'
                ? 'Data model (what enters)'
                : 'Data model (what it answers)'
            }
          >
            <div className={styles.row}>
              <select
                className="select"
                aria-label="Data model"
                value={own.name}
                onChange={(e) => {
                  const model = library.find((m) => m.name === e.target.value);
                  if (model) run(setDataModel, { nodeId: node.id, dataModel: model });
                }}
              >
                {modelNames.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
              <button type="button" className="btn" onClick={() => onEditModel(own.name)}>
                Edit…
              </button>
            </div>
          </Field>
        )}
        {own && (
          <p className={styles.hint}>
            Fields: <span className="mono">{schemaKeys(own.schema).join(', ') || '(none)'}</span>
          </p>
        )}
        {node.data.kind !== 'Input' && <OutputToggle nodeId={node.id} name={config.name} />}
      </section>
      <KindSettings node={node} />
      {'variable' in data && <GeneratorSettings nodeId={node.id} data={data} />}
    </>
  );
}

function GeneratorSettings({
  nodeId,
  data,
}: {
  nodeId: string;
  data: GeneratorNodeData | DecisionNodeData;
}) {
  const attempt = useEditorStore((s) => s.attempt);
  const { config, variable } = data;
  const patch = (change: ModulePatch) => attempt(updateModule, { nodeId, config: change });
  const setExamples = (examples: Example[]) =>
    attempt(updateModule, { nodeId, variable: { examples } });
  return (
    <>
      <section className={styles.section}>
        <h3 className={styles.sectionTitle}>Language model</h3>
        <Field label="Model" hint="A litellm model name, e.g. openai/gpt-4o-mini.">
          <CommitField
            label="Language model"
            value={String(config.language_model.config.model ?? '')}
            onCommit={(model) =>
              model.trim()
                ? patch({
                    language_model: {
                      ...config.language_model,
                      config: { ...config.language_model.config, model: model.trim() },
                    },
                  })
                : 'A model name is required.'
            }
          />
        </Field>
        <label className={styles.check}>
          <input
            type="checkbox"
            checked={config.use_inputs_schema}
            onChange={(e) => patch({ use_inputs_schema: e.target.checked })}
          />
          Show the input JSON schema in the prompt
        </label>
        <label className={styles.check}>
          <input
            type="checkbox"
            checked={config.use_outputs_schema}
            onChange={(e) => patch({ use_outputs_schema: e.target.checked })}
          />
          Show the output JSON schema in the prompt
        </label>
      </section>
      <SamplingSettings config={config} patch={patch} />
      <section className={styles.section}>
        <h3 className={styles.sectionTitle}>
          Trainable variable <span className="mono">{variableName(config.name)}</span>
        </h3>
        <label className={styles.check}>
          <input
            type="checkbox"
            checked={config.trainable}
            onChange={(e) => patch({ trainable: e.target.checked })}
          />
          Optimizers may change it
        </label>
        <Field label="Instructions">
          <CommitField
            label="Instructions"
            multiline
            value={variable.instructions}
            onCommit={(text) =>
              attempt(updateModule, {
                nodeId,
                config: { instructions: text },
                variable: { instructions: text },
              })
            }
          />
        </Field>
        <ExamplesEditor examples={variable.examples} onChange={setExamples} />
        <p className={styles.hint}>
          Optimizer state: {variable.candidates.length} candidates,{' '}
          {variable.best_candidates.length} kept, {variable.nb_visit} visits.
        </p>
      </section>
    </>
  );
}

function parseObject(text: string): JsonObject | string {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : 'Must be a JSON object, e.g. {"query": "..."}.';
  } catch (error) {
    return `Not JSON: ${(error as Error).message}`;
  }
}

function ExamplesEditor({
  examples,
  onChange,
}: {
  examples: Example[];
  onChange: (examples: Example[]) => string | null;
}) {
  const edit = (index: number, key: 'inputs' | 'outputs', text: string) => {
    const value = parseObject(text);
    if (typeof value === 'string') return value;
    return onChange(examples.map((ex, i) => (i === index ? { ...ex, [key]: value } : ex)));
  };
  return (
    <div className={styles.examples}>
      <div className={styles.row}>
        <span className={styles.fieldLabel}>Few-shot examples ({examples.length})</span>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => onChange([...examples, { inputs: {}, outputs: {}, reward: null }])}
        >
          Add example
        </button>
      </div>
      {examples.map((example, index) => (
        <fieldset key={index} className={styles.example}>
          <legend>
            Example {index + 1}
            {typeof example.reward === 'number' ? ` · reward ${example.reward}` : ''}
          </legend>
          <CommitField
            label={`Example ${index + 1} inputs`}
            multiline
            value={JSON.stringify(example.inputs)}
            onCommit={(text) => edit(index, 'inputs', text)}
          />
          <CommitField
            label={`Example ${index + 1} outputs`}
            multiline
            value={JSON.stringify(example.outputs)}
            onCommit={(text) => edit(index, 'outputs', text)}
          />
          <button
            type="button"
            className="btn btn-small btn-danger"
            onClick={() => onChange(examples.filter((_, i) => i !== index))}
          >
            Remove
          </button>
        </fieldset>
      ))}
    </div>
  );
}

function OutputToggle({ nodeId, name }: { nodeId: string; name: string }) {
  const feedsOthers = useEditorStore((s) => s.edges.some((e) => e.source === nodeId));
  const declared = useEditorStore((s) => s.meta.outputOrder.includes(name));
  const run = useEditorStore((s) => s.run);
  return (
    <label
      className={styles.check}
      title={feedsOthers ? undefined : 'Nothing reads from it, so it is an output.'}
    >
      <input
        type="checkbox"
        checked={!feedsOthers || declared}
        disabled={!feedsOthers}
        onChange={(e) => run(setProgramOutput, { nodeId, output: e.target.checked })}
      />
      Program output
    </label>
  );
}

/** The server's problems from the last save: the selected modules', or all when none is. */
function ServerProblems({ names }: { names: string[] }) {
  const problems = useServerProgram((s) => s.problems);
  const shown = names.length
    ? problems.filter((p) => p.module && names.includes(p.module))
    : problems;
  if (shown.length === 0) return null;
  return (
    <ul className={styles.serverProblems} aria-label="Server problems">
      {shown.map((p) => (
        <li key={`${p.path}:${p.message}`}>
          <span className="mono">{p.path || 'document'}</span>: {p.message}
        </li>
      ))}
    </ul>
  );
}
