import { Handle, Position } from '@xyflow/react';
import { isJsonObject } from '@/lib/json';
import { outputModelName, type ModuleKind, type SavedDataModel } from '../../model/document';
import { INPUT_HANDLE, OUTPUT_HANDLE } from '../../model/graph';
import { useEditorStore } from '../../store/editorStore';
import { useServerProgram } from '../../store/serverProgram';
import { useTryTrace } from '../../store/tryTrace';
import styles from './nodes.module.css';

const KIND_TEXT: Record<ModuleKind, string> = {
  Input: 'Input',
  Generator: 'Generator',
  ChainOfThought: 'Chain of thought',
};

function fieldSummary(dataModel: SavedDataModel): { name: string; type: string }[] {
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
  dataModel: SavedDataModel;
  selected: boolean;
  detail?: string;
};

const MAX_FIELDS = 5;

/** The card every module kind draws: kind, name, its output model's fields, and ports. */
export function ModuleCard({ id, kind, name, dataModel, selected, detail }: Props) {
  // The model arriving on the input port, for the label; one selector per node keeps renders local.
  const incoming = useEditorStore((state) => {
    const edge = state.edges.find((e) => e.target === id);
    const source = edge && state.nodes.find((n) => n.id === edge.source);
    return source ? outputModelName(source.data.kind, source.data.config.data_model) : null;
  });
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
  const fields = fieldSummary(dataModel);
  const output = outputModelName(kind, dataModel);
  const kindClass = {
    Input: styles.input,
    Generator: styles.generator,
    ChainOfThought: styles.cot,
  }[kind];
  return (
    <div
      className={`${styles.node} ${kindClass} ${selected ? styles.selected : ''} ${
        unusedInput || serverProblem || (kind !== 'Input' && !incoming) ? styles.problem : ''
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
          title={incoming ? `Input: ${incoming}` : 'Input: connect one module'}
        />
      )}
      <div className={styles.header}>
        <span className={styles.kind}>{KIND_TEXT[kind]}</span>
        <span className={styles.name} title={name}>
          {name}
        </span>
      </div>
      <div className={styles.body}>
        {kind !== 'Input' && (
          <div className={styles.port}>
            <span className={styles.portLabel}>in</span>
            <span className={incoming ? styles.model : styles.missing}>
              {incoming ?? 'not connected'}
            </span>
          </div>
        )}
        <div className={styles.port}>
          <span className={styles.portLabel}>out</span>
          <span className={styles.model}>{output}</span>
          {unusedInput && <span className={styles.missing}>unused</span>}
        </div>
        {serverProblem && (
          <div className={styles.missing} role="note">
            {serverProblem}
          </div>
        )}
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
        {detail && <div className={styles.detail}>{detail}</div>}
      </div>
      <Handle
        type="source"
        id={OUTPUT_HANDLE}
        position={Position.Right}
        className={styles.handle}
        title={`Output: ${output}`}
      />
    </div>
  );
}
