import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  type Connection,
  type FinalConnectionState,
  type IsValidConnection,
} from '@xyflow/react';
import { useCallback, useMemo, type DragEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { connect } from '../actions/connect';
import { addNode } from '../actions/addNode';
import { MODULE_KINDS, type ModuleKind } from '../model/document';
import { labelEdges } from '../model/edgeLabels';
import { moduleName } from '../model/graph';
import { checkConnection } from '../model/rules';
import { useEditorStore } from '../store/editorStore';
import { nodeTypes } from './nodes/nodeTypes';
import { PALETTE_MIME } from './Palette';
import { useReactFlow } from '@xyflow/react';
import styles from './editor.module.css';

const MINIMAP_COLORS: Partial<Record<ModuleKind, string>> = {
  Input: '#0c8599',
  Generator: '#3b5bdb',
  ChainOfThought: '#7048e8',
  Decision: '#e67700',
  MultiDecision: '#e67700',
  Branch: '#e67700',
  SelfCritique: '#7048e8',
};
const MINIMAP_PLAIN = '#5c677d';

const defaultEdgeOptions = { type: 'smoothstep', style: { strokeWidth: 1.6 } };

/** The canvas: React Flow bound to the editor store; every change goes through an action. */
export function Canvas() {
  const nodes = useEditorStore((s) => s.nodes);
  const storedEdges = useEditorStore((s) => s.edges);
  // Screen readers hear "Connection from input_layer to generator", not node ids.
  const nameList = useEditorStore(useShallow((s) => s.nodes.flatMap((n) => [n.id, moduleName(n)])));
  const edges = useMemo(() => {
    const names = new Map<string, string>();
    for (let i = 0; i < nameList.length; i += 2) names.set(nameList[i]!, nameList[i + 1]!);
    return labelEdges(storedEdges, names);
  }, [storedEdges, nameList]);
  const onNodesChange = useEditorStore((s) => s.onNodesChange);
  const onEdgesChange = useEditorStore((s) => s.onEdgesChange);
  const flow = useReactFlow();

  const isValidConnection = useCallback<IsValidConnection>(
    (c) => checkConnection(useEditorStore.getState(), c.source, c.target, c.sourceHandle).ok,
    [],
  );
  const onConnect = useCallback((c: Connection) => {
    useEditorStore
      .getState()
      .run(connect, { source: c.source, target: c.target, sourceHandle: c.sourceHandle });
  }, []);
  // A refused drop says why, instead of the edge silently snapping back.
  const onConnectEnd = useCallback(
    (_event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
      if (state.isValid || !state.fromNode || !state.toNode) return;
      const fromSource = state.fromHandle?.type === 'source';
      const source = fromSource ? state.fromNode.id : state.toNode.id;
      const target = fromSource ? state.toNode.id : state.fromNode.id;
      const handle = fromSource ? state.fromHandle?.id : state.toHandle?.id;
      const check = checkConnection(useEditorStore.getState(), source, target, handle);
      if (!check.ok) useEditorStore.getState().notify('error', check.reason);
    },
    [],
  );

  const onDragOver = useCallback((event: DragEvent) => {
    if (event.dataTransfer.types.includes(PALETTE_MIME)) {
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
    }
  }, []);
  const onDrop = useCallback(
    (event: DragEvent) => {
      const kind = event.dataTransfer.getData(PALETTE_MIME) as ModuleKind;
      if (!MODULE_KINDS.includes(kind)) return;
      event.preventDefault();
      const position = flow.screenToFlowPosition({ x: event.clientX - 120, y: event.clientY - 30 });
      useEditorStore.getState().run(addNode, { kind, position });
    },
    [flow],
  );

  return (
    <div className={styles.canvas} onDragOver={onDragOver} onDrop={onDrop}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onConnectEnd={onConnectEnd}
        isValidConnection={isValidConnection}
        defaultEdgeOptions={defaultEdgeOptions}
        deleteKeyCode={null}
        fitView
        fitViewOptions={{ padding: 0.25, maxZoom: 1.1 }}
        minZoom={0.2}
        maxZoom={2}
        aria-label="Program canvas"
      >
        <Background variant={BackgroundVariant.Dots} gap={18} size={1.2} color="#c9d0dc" />
        <MiniMap
          pannable
          zoomable
          nodeColor={(n) => MINIMAP_COLORS[n.type as ModuleKind] ?? MINIMAP_PLAIN}
          nodeStrokeWidth={2}
          style={{ width: 150, height: 100 }}
          ariaLabel="Minimap"
        />
        <Controls showInteractive={false} aria-label="Zoom controls" />
      </ReactFlow>
    </div>
  );
}
