import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useState } from 'react';
import { Canvas } from './components/Canvas';
import { DataModelDesigner } from './components/DataModelDesigner';
import { Inspector } from './components/Inspector';
import { Palette } from './components/Palette';
import { StatusBar } from './components/StatusBar';
import { Toolbar } from './components/Toolbar';
import styles from './components/editor.module.css';
import { useEditorCommands } from './hooks/useEditorCommands';
import { useKeyboardShortcuts } from './hooks/useKeyboardShortcuts';
import { saveLibrary } from './store/library';
import { useEditorStore } from './store/editorStore';

function Editor() {
  const commands = useEditorCommands();
  useKeyboardShortcuts(commands);
  // undefined: closed; null: open on a new model; a name: open on that model.
  const [designer, setDesigner] = useState<string | null | undefined>(undefined);
  useEffect(
    () =>
      useEditorStore.subscribe((state, previous) => {
        if (state.dataModels !== previous.dataModels) saveLibrary(state.dataModels);
      }),
    [],
  );
  const firstModel = useEditorStore((s) => s.dataModels[0]?.name ?? null);
  return (
    <div className={styles.editor}>
      <Toolbar commands={commands} onOpenModels={() => setDesigner(firstModel)} />
      <div className={styles.workspace}>
        <Palette onAdd={commands.add} />
        <Canvas />
        <Inspector onEditModel={(name) => setDesigner(name)} onCopy={commands.copy} />
      </div>
      <StatusBar />
      {designer !== undefined && (
        <DataModelDesigner initialName={designer} onClose={() => setDesigner(undefined)} />
      )}
    </div>
  );
}

/** The program editor page (route /editor). */
export default function EditorPage() {
  return (
    <ReactFlowProvider>
      <Editor />
    </ReactFlowProvider>
  );
}
