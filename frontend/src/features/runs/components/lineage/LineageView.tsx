import {
  Background,
  Controls,
  ReactFlow,
  ReactFlowProvider,
  type NodeChange,
  type XYPosition,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { FormField } from '@/lib/components/FormField';
import { useRunLineage, type LineageRow, type VariableLineage } from '../../api/runsLineage';
import {
  buildLineageGraph,
  layoutLineage,
  shortId,
  type CandidateNode as CandidateNodeType,
} from '../../model/lineageGraph';
import { CandidatePanel } from './CandidatePanel';
import { lineageNodeTypes } from './lineageNodeTypes';
import styles from './lineage.module.css';

function Legend() {
  return (
    <div className={styles.legend} aria-label="Legend">
      <span>
        reward 0 <span className={styles.scale} /> 1
      </span>
      <span>
        <span className={styles.swatch} style={{ border: '3px solid var(--accent)' }} /> best
      </span>
      <span>
        <span className={styles.swatch} style={{ border: '2px solid var(--ok)' }} /> survived
      </span>
      <span>
        <span
          className={styles.swatch}
          style={{ border: '1px dashed var(--border-strong)', opacity: 0.72 }}
        />{' '}
        dropped
      </span>
      <span>
        <span className={styles.crossLine} /> crossover
      </span>
    </div>
  );
}

function summary(variable: VariableLineage): string {
  const count = (op: string) => variable.nodes.filter((n) => n.operation === op).length;
  const parts = [`${variable.nodes.length} candidates`];
  for (const op of ['mutation', 'crossover', 'few_shot']) {
    const n = count(op);
    if (n) parts.push(`${n} ${op.replace('_', '-')}${n === 1 ? '' : 's'}`);
  }
  parts.push(`${variable.nodes.filter((n) => n.in_population).length} survived`);
  const best = variable.nodes.find((n) => n.best);
  if (best) parts.push(`ended with ${shortId(best.id)} (reward ${best.reward?.toFixed(3) ?? '—'})`);
  return parts.join(', ');
}

function VariableGraph({
  variable,
  rows,
}: {
  variable: VariableLineage;
  rows: Map<number, LineageRow>;
}) {
  const [selected, setSelected] = useState<string | null>(
    variable.best ?? variable.nodes[variable.nodes.length - 1]?.id ?? null,
  );
  const [positions, setPositions] = useState<Record<string, XYPosition> | null>(null);
  const [layoutError, setLayoutError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    layoutLineage(variable).then(
      (found) => current && setPositions(found),
      (error: unknown) => current && setLayoutError(String(error)),
    );
    return () => {
      current = false;
    };
  }, [variable]);
  const graph = useMemo(
    () => buildLineageGraph(variable, selected, positions ?? {}),
    [variable, selected, positions],
  );
  // Clicking a node, or Enter on a focused one, selects it; the selection stays put otherwise.
  const onNodesChange = useCallback((changes: NodeChange<CandidateNodeType>[]) => {
    for (const change of changes)
      if (change.type === 'select' && change.selected) setSelected(change.id);
  }, []);
  const candidate = variable.nodes.find((n) => n.id === selected) ?? null;
  return (
    <>
      <p className="note" data-testid="lineage-summary">
        {summary(variable)}
      </p>
      <div className={styles.layout}>
        <div className={styles.canvas} role="region" aria-label={`Lineage of ${variable.name}`}>
          {layoutError ? (
            <div className="alert">{layoutError}</div>
          ) : positions === null ? (
            <p className="note" style={{ padding: 12 }}>
              Laying out {variable.nodes.length} candidates…
            </p>
          ) : (
            <ReactFlow
              nodes={graph.nodes}
              edges={graph.edges}
              nodeTypes={lineageNodeTypes}
              onNodesChange={onNodesChange}
              nodesDraggable={false}
              nodesConnectable={false}
              elementsSelectable
              fitView
              minZoom={0.1}
              proOptions={{ hideAttribution: true }}
            >
              <Background gap={20} />
              <Controls showInteractive={false} />
            </ReactFlow>
          )}
        </div>
        <CandidatePanel variable={variable} candidate={candidate} rows={rows} />
      </div>
    </>
  );
}

/** Every trainable variable's candidates as a DAG, and the selected one against its parents. */
export default function LineageView({ runId }: { runId: number }) {
  const lineage = useRunLineage(runId);
  const [picked, setPicked] = useState<string | null>(null);
  const rows = useMemo(
    () => new Map((lineage.data?.rows ?? []).map((r) => [r.index, r])),
    [lineage.data?.rows],
  );
  if (lineage.isPending) return <p className="note">Loading the lineage…</p>;
  if (lineage.isError)
    return (
      <div className="alert" role="alert">
        {lineage.error.message}
      </div>
    );
  const variables = lineage.data.variables;
  const variable = variables.find((v) => v.name === picked) ?? variables[0];
  if (!variable)
    return (
      <p className="note">
        No candidate yet: the optimizer reports each one as it proposes it (from the first training
        step).
      </p>
    );
  return (
    <div>
      <div className={styles.toolbar}>
        {variables.length > 1 && (
          <FormField label="Variable" id="lineage-variable">
            {(control) => (
              <select
                {...control}
                className="select"
                value={variable.name}
                onChange={(e) => setPicked(e.target.value)}
              >
                {variables.map((v) => (
                  <option key={v.name} value={v.name}>
                    {v.name}
                  </option>
                ))}
              </select>
            )}
          </FormField>
        )}
        {variables.length === 1 && <span className="mono">{variable.name}</span>}
        <Legend />
      </div>
      <ReactFlowProvider key={variable.name}>
        <VariableGraph variable={variable} rows={rows} />
      </ReactFlowProvider>
    </div>
  );
}
