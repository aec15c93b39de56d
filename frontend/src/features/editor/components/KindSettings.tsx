import { useState } from 'react';
import { editLabels, setQuestion } from '../actions/editLabels';
import { setCritique } from '../actions/setCritique';
import { setMask } from '../actions/setMask';
import { updateModule } from '../actions/updateModule';
import { updateBranchModule, type BranchPart, type HeldModulePatch } from '../actions/editBranch';
import { kindOfClass, variableName, type GeneratorConfig } from '../model/document';
import type { BranchNodeData, ProgramNode } from '../model/graph';
import { baseKey, modelKeys, OutputModels } from '../model/schemas';
import { useEditorStore } from '../store/editorStore';
import { CommitField } from './CommitField';
import { SamplingSettings } from './SamplingSettings';
import styles from './editor.module.css';

/** The settings of a Decision or Branch (question, labels) and of a mask (its fields). */
export function KindSettings({ node }: { node: ProgramNode }) {
  const { data } = node;
  if (data.kind === 'SelfCritique') {
    return (
      <>
        <CritiqueSettings
          nodeId={node.id}
          revise={data.config.revise}
          grades={data.config.return_reward}
        />
        <ModelSettings nodeId={node.id} model={String(data.config.language_model.config.model)} />
      </>
    );
  }
  if (data.kind === 'Branch') {
    return (
      <>
        <LabelSettings
          nodeId={node.id}
          question={data.config.question}
          labels={data.config.labels}
          held={data.config.branches.map((b) => (b ? String(b.config.name) : null))}
        />
        <ModelSettings nodeId={node.id} model={String(data.config.language_model.config.model)} />
        <BranchModules nodeId={node.id} data={data} />
      </>
    );
  }
  if (data.kind === 'Decision' || data.kind === 'MultiDecision') {
    return (
      <LabelSettings
        nodeId={node.id}
        question={data.config.question}
        labels={data.config.labels}
        held={null}
      />
    );
  }
  if (data.kind === 'InMask' || data.kind === 'OutMask') {
    return (
      <MaskSettings nodeId={node.id} keeps={data.kind === 'InMask'} mask={data.config.mask ?? []} />
    );
  }
  return null;
}

/** The language model of a module's Generators (a Branch's decision, a critic and reviser). */
function ModelSettings({ nodeId, model }: { nodeId: string; model: string }) {
  const attempt = useEditorStore((s) => s.attempt);
  const current = useEditorStore((s) => s.nodes.find((n) => n.id === nodeId));
  return (
    <section className={styles.section}>
      <h3 className={styles.sectionTitle}>Language model</h3>
      <label className={styles.field}>
        <span className={styles.fieldLabel}>Model</span>
        <CommitField
          label="Language model"
          value={model}
          onCommit={(text) => {
            const data = current?.data;
            if (!text.trim()) return 'A model name is needed.';
            if (!data || !('language_model' in data.config)) return null;
            const language_model = {
              ...data.config.language_model,
              config: { ...data.config.language_model.config, model: text.trim() },
            };
            return attempt(updateModule, { nodeId, config: { language_model } });
          }}
        />
        <span className={styles.hint}>A litellm model name, e.g. openai/gpt-4o-mini.</span>
      </label>
    </section>
  );
}

function CritiqueSettings({
  nodeId,
  revise,
  grades,
}: {
  nodeId: string;
  revise: boolean;
  grades: boolean;
}) {
  const run = useEditorStore((s) => s.run);
  return (
    <section className={styles.section}>
      <h3 className={styles.sectionTitle}>Self-critique</h3>
      <label className={styles.check}>
        <input
          type="checkbox"
          checked={grades}
          onChange={(e) => run(setCritique, { nodeId, return_reward: e.target.checked })}
        />
        Grade the input too (<span className="mono">reward</span>, 0 to 1)
      </label>
      <label className={styles.check}>
        <input
          type="checkbox"
          checked={revise}
          onChange={(e) => run(setCritique, { nodeId, revise: e.target.checked })}
        />
        Revise the last input in the light of the critique
      </label>
    </section>
  );
}

function LabelSettings({
  nodeId,
  question,
  labels,
  held,
}: {
  nodeId: string;
  question: string;
  labels: string[];
  held: (string | null)[] | null;
}) {
  const attempt = useEditorStore((s) => s.attempt);
  const [added, setAdded] = useState('');
  const [refused, setRefused] = useState<string | null>(null);
  return (
    <section className={styles.section}>
      <h3 className={styles.sectionTitle}>Decision</h3>
      <label className={styles.field}>
        <span className={styles.fieldLabel}>Question</span>
        <CommitField
          label="Question"
          multiline
          value={question}
          onCommit={(text) => attempt(setQuestion, { nodeId, question: text })}
        />
      </label>
      <span className={styles.fieldLabel}>
        Labels{held ? ' (one output each, top to bottom)' : ''}
      </span>
      <ul className={styles.labelList}>
        {labels.map((label, index) => (
          <li key={`${index}:${label}`} className={styles.row}>
            <CommitField
              label={`Label ${index + 1}`}
              value={label}
              onCommit={(text) =>
                attempt(editLabels, { nodeId, edit: { op: 'rename', index, label: text } })
              }
            />
            {held && (
              <span className={styles.hint} title="The module this label runs">
                {held[index] ?? 'passes on'}
              </span>
            )}
            <button
              type="button"
              className="btn"
              aria-label={`Remove label ${label}`}
              disabled={labels.length <= 2}
              onClick={() => attempt(editLabels, { nodeId, edit: { op: 'remove', index } })}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form
        className={styles.row}
        onSubmit={(event) => {
          event.preventDefault();
          const reason = attempt(editLabels, { nodeId, edit: { op: 'add', label: added } });
          setRefused(reason);
          if (reason === null) setAdded('');
        }}
      >
        <input
          className="input"
          aria-label="New label"
          placeholder="New label"
          value={added}
          aria-invalid={refused ? true : undefined}
          onChange={(e) => {
            setAdded(e.target.value);
            setRefused(null);
          }}
        />
        <button type="submit" className="btn">
          Add label
        </button>
      </form>
      {refused && (
        <p className="field-error" role="alert">
          {refused}
        </p>
      )}
    </section>
  );
}

/**
 * What a Branch's decision and each label's module are told and how they sample: the
 * decision's instructions, then per label holding a Generator (or a ChainOfThought, a
 * Decision) its model, instructions and sampling. Modules drawn after a label's output are
 * edited on their own nodes.
 */
function BranchModules({ nodeId, data }: { nodeId: string; data: BranchNodeData }) {
  const attempt = useEditorStore((s) => s.attempt);
  const edit = (part: BranchPart) => (patch: HeldModulePatch) =>
    attempt(updateBranchModule, { nodeId, part, patch });
  const decision = `${data.config.name}_decision`;
  return (
    <>
      <HeldSettings
        title="The decision"
        owner={decision}
        config={data.config}
        instructions={data.variables[variableName(decision)]?.instructions ?? ''}
        edit={edit('decision')}
      />
      {data.config.labels.map((label, slot) => {
        const held = data.config.branches[slot];
        if (!held) return null;
        const owner = String(held.config.name);
        const kind = kindOfClass(held.class_name);
        const title = `Label '${label}': ${owner}`;
        if (!kind || !['Generator', 'ChainOfThought', 'Decision', 'MultiDecision'].includes(kind)) {
          return (
            <section key={slot} className={styles.section}>
              <h3 className={styles.sectionTitle}>{title}</h3>
              <p className={styles.hint}>
                {kind ?? held.class_name} modules held by a Branch keep the settings they were built
                with.
              </p>
            </section>
          );
        }
        const config = held.config as unknown as GeneratorConfig;
        return (
          <HeldSettings
            key={slot}
            title={title}
            owner={owner}
            config={config}
            model={String(config.language_model.config.model ?? '')}
            instructions={data.variables[variableName(owner)]?.instructions ?? ''}
            edit={edit(slot)}
          />
        );
      })}
    </>
  );
}

function HeldSettings({
  title,
  owner,
  config,
  model,
  instructions,
  edit,
}: {
  title: string;
  owner: string;
  config: Pick<
    GeneratorConfig,
    'temperature' | 'max_tokens' | 'top_p' | 'top_k' | 'reasoning_effort'
  >;
  /** Its model, when it has one of its own (the decision's is the Branch's). */
  model?: string;
  instructions: string;
  edit: (patch: HeldModulePatch) => string | null;
}) {
  return (
    <>
      <section className={styles.section}>
        <h3 className={styles.sectionTitle}>{title}</h3>
        {model !== undefined && (
          <label className={styles.field}>
            <span className={styles.fieldLabel}>Model</span>
            <CommitField
              label={`Language model (${owner})`}
              value={model}
              onCommit={(text) => edit({ model: text })}
            />
          </label>
        )}
        <label className={styles.field}>
          <span className={styles.fieldLabel}>
            Instructions (<span className="mono">{variableName(owner)}</span>)
          </span>
          <CommitField
            label={`Instructions (${owner})`}
            multiline
            value={instructions}
            onCommit={(text) => edit({ instructions: text })}
          />
          <span className={styles.hint}>Empty: its default instructions.</span>
        </label>
      </section>
      <SamplingSettings config={config} patch={edit} owner={owner} />
    </>
  );
}

function MaskSettings({ nodeId, keeps, mask }: { nodeId: string; keeps: boolean; mask: string[] }) {
  const attempt = useEditorStore((s) => s.attempt);
  // The fields arriving on the input, as the edges' models give them.
  const fieldsText = useEditorStore((s) =>
    JSON.stringify(modelKeys(new OutputModels(s).inputs(nodeId)[0])),
  );
  const fields = JSON.parse(fieldsText) as string[];
  const bases = new Set(mask.map(baseKey));
  const toggle = (field: string, on: boolean) => {
    const rest = mask.filter((entry) => baseKey(entry) !== baseKey(field));
    attempt(setMask, { nodeId, mask: on ? [...rest, field] : rest });
  };
  return (
    <section className={styles.section}>
      <h3 className={styles.sectionTitle}>{keeps ? 'Fields to keep' : 'Fields to drop'}</h3>
      {fields.length === 0 && (
        <p className={styles.hint}>Connect a module: its output fields are listed here.</p>
      )}
      {fields.map((field) => (
        <label key={field} className={styles.check}>
          <input
            type="checkbox"
            checked={bases.has(baseKey(field))}
            onChange={(e) => toggle(field, e.target.checked)}
          />
          <span className="mono">{field}</span>
        </label>
      ))}
      <p className={styles.hint}>
        A field matches by its base name: <span className="mono">answer</span> also picks{' '}
        <span className="mono">answers</span> and <span className="mono">answer_1</span>.
      </p>
    </section>
  );
}
