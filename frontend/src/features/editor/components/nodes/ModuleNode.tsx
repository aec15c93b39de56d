import { Handle, Position } from '@xyflow/react';
import { useMemo } from 'react';
import type { JsonSchema } from '@/lib/datamodel/schema';
import { isJsonObject } from '@/lib/json';
import { outputModelName, type ModuleKind, type SavedDataModel } from '../../model/document';
import {
  INPUT_HANDLE,
  OUTPUT_HANDLE,
  ownDataModel,
  slotHandle,
  type EditorGraph,
} from '../../model/graph';
import { OutputModels } from '../../model/schemas';
import { KIND_TEXT } from './kindText';
import { useEditorStore } from '../../store/editorStore';
import { useServerProgram } from '../../store/serverProgram';
import { useTryTrace } from '../../store/tryTrace';
import styles from './nodes.module.css';

const KIND_CLASS: Partial<Record<ModuleKind, string | undefined>> = {
  Input: styles.input,
  Generator: styles.generator,
  ChainOfThought: styles.cot,
  Decision: styles.decision,
  MultiDecision: styles.decision,
  Branch: styles.decision,
  SelfCritique: styles.cot,
};

function fieldSummary(dataModel: { schema: JsonSchema }): { name: string; type: string }[] {
  const properties = dataModel.schema.properties;
  if (!isJsonObject(properties)) return [];
  return Object.entries(properties).map(([name, prop]) => {
    let type = 'any';
    if (isJsonObject(prop)) {
      const inner = Array.isArray(prop.anyOf) ? (prop.anyOf[0] as typeof prop) : prop;
      if (isJsonObject(inner)) {
        if (typeof inner.$ref === 'string') type = inner.$ref.split('/').pop() ?? 'object';
        else if ('enum' in inner || 'const' in inner) type = 'enum';
        else if (inner.type === 'array') {
          const items = inner.items;
          const item = isJsonObject(items)
            ? typeof items.$ref === 'string'
              ? items.$ref.split('/').pop()
              : items.type
            : 'any';
          type = `${String(item)}[]`;
        } else if (typeof inner.type === 'string') type = inner.type;
      }
      if (Array.isArray(prop.anyOf)) type += '?';
    }
    return { name, type };
  });
}

type Props = {
  id: string;
  kind: ModuleKind;
  name: string;
  /** The model a module declares (Inputs, Generators); others show what they derive. */
  dataModel?: SavedDataModel;
  selected: boolean;
  detail?: string;
  /** The labels of a Branch's slots: one output handle each. */
  slots?: string[];
};

/** What the card shows of the graph around it, as one string so the store's selector is stable. */
type Around = {
  incoming: string[];
  outputs: ({ name: string; schema: JsonSchema } | null)[];
};

function around(state: Pick<EditorGraph, 'nodes' | 'edges'>, id: string): string {
  const models = new OutputModels(state);
  const arriving = models.inputs(id);
  const incoming = state.edges
    .filter((e) => e.target === id)
    .map((edge, index) => {
      const source = state.nodes.find((n) => n.id === edge.source);
      const own = source && ownDataModel(source);
      if (source && own) return outputModelName(source.data.kind, own);
      return arriving[index]?.name ?? '?';
    });
  const node = state.nodes.find((n) => n.id === id);
  const outputs = node && !ownDataModel(node) ? models.outputs(id) : [];
  return JSON.stringify({ incoming, outputs } satisfies Around);
}

const MAX_FIELDS = 5;

/**
 * The card every module kind draws: kind, name, what arrives (one port that takes every
 * incoming edge), its output model's fields, and one output port (one per label for a Branch).
 */
export function ModuleCard({ id, kind, name, dataModel, selected, detail, slots }: Props) {
  // The graph around this module, one selector per node keeps renders local.
  const aroundText = useEditorStore((state) => around(state, id));
  const { incoming, outputs } = useMemo(() => JSON.parse(aroundText) as Around, [aroundText]);
  // An Input nothing reads from does not reach any output: the engine would refuse it.
  const unusedInput = useEditorStore(
    (state) => kind === 'Input' && !state.edges.some((e) => e.source === id),
  );
  // What the server refused on the last save, for this module.
  const serverProblem = useServerProgram(
    (state) => state.problems.find((p) => p.module === name)?.message ?? null,
  );
  // The last "Try it" run: this module ran (ok / failed), and whether its trace is in focus.
  const tried = useTryTrace((state) => state.status[name] ?? null);
  const traceFocused = useTryTrace((state) => state.focused === name);
  const shown = dataModel ?? (slots ? null : (outputs[0] ?? null));
  const fields = shown ? fieldSummary(shown) : [];
  const output = dataModel
    ? outputModelName(kind, dataModel)
    : slots
      ? `${slots.length} slots`
      : (outputs[0]?.name ?? 'unknown until connected');
  const first = incoming[0] ?? null;
  const inText = incoming.length > 1 ? incoming.join(' + ') : first;
  return (
    <div
      className={`${styles.node} ${KIND_CLASS[kind] ?? styles.plain} ${selected ? styles.selected : ''} ${
        unusedInput || serverProblem || (kind !== 'Input' && !first) ? styles.problem : ''
      } ${tried === 'ok' ? styles.tried : ''} ${tried === 'error' ? styles.triedError : ''} ${
        traceFocused ? styles.traceFocused : ''
      }`}
      data-try={tried ?? undefined}
      aria-label={`${KIND_TEXT[kind]} ${name}, outputs ${output}`}
      title={serverProblem ?? undefined}
    >
      {kind !== 'Input' && (
        <Handle
          type="target"
          id={INPUT_HANDLE}
          position={Position.Left}
          className={styles.handle}
          title={inText ? `Input: ${inText}` : 'Input: connect a module'}
        />
      )}
      <div className={styles.header}>
        <span className={styles.kind}>{KIND_TEXT[kind]}</span>
        <span className={styles.name} title={name}>
          {name}
        </span>
      </div>
      <div className={styles.body}>
        {kind !== 'Input' && incoming.length <= 1 && (
          <div className={styles.port}>
            <span className={styles.portLabel}>in</span>
            <span className={first ? styles.model : styles.missing}>
              {first ?? 'not connected'}
            </span>
          </div>
        )}
        {incoming.length > 1 && (
          <ol className={styles.inputs} aria-label={`${incoming.length} inputs`}>
            {incoming.map((model, index) => (
              <li key={index}>
                <span className={styles.portLabel}>in {index + 1}</span>
                <span className={styles.model}>{model}</span>
              </li>
            ))}
          </ol>
        )}
        {!slots && (
          <div className={styles.port}>
            <span className={styles.portLabel}>out</span>
            <span className={shown ? styles.model : styles.missing}>{output}</span>
            {unusedInput && <span className={styles.missing}>unused</span>}
          </div>
        )}
        {slots && (
          <ul className={styles.slots}>
            {slots.map((label, slot) => (
              <li key={slot} className={styles.slot}>
                <span className={styles.slotLabel}>{label}</span>
                <span className={styles.model}>{outputs[slot]?.name ?? '?'}</span>
                <Handle
                  type="source"
                  id={slotHandle(slot)}
                  position={Position.Right}
                  className={styles.handle}
                  title={`Output of label ${label}`}
                />
              </li>
            ))}
          </ul>
        )}
        {serverProblem && (
          <div className={styles.missing} role="note">
            {serverProblem}
          </div>
        )}
        {fields.length > 0 && (
          <ul className={styles.fields}>
            {kind === 'ChainOfThought' && !fields.some((f) => f.name === 'thinking') && (
              <li className={styles.implicit}>
                <span>thinking</span>
                <span>string</span>
              </li>
            )}
            {fields.slice(0, MAX_FIELDS).map((field) => (
              <li key={field.name}>
                <span>{field.name}</span>
                <span>{field.type}</span>
              </li>
            ))}
            {fields.length > MAX_FIELDS && (
              <li className={styles.more}>+{fields.length - MAX_FIELDS} more</li>
            )}
          </ul>
        )}
        {detail && <div className={styles.detail}>{detail}</div>}
      </div>
      {!slots && (
        <Handle
          type="source"
          id={OUTPUT_HANDLE}
          position={Position.Right}
          className={styles.handle}
          title={`Output: ${output}`}
        />
      )}
    </div>
  );
}
