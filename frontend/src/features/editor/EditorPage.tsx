import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { restoreDraft } from './actions/restoreDraft';
import { Canvas } from './components/Canvas';
import { DraftPrompt } from './components/DraftPrompt';
import { DataModelDesigner } from './components/DataModelDesigner';
import { Inspector } from './components/Inspector';
import { Palette } from './components/Palette';
import { StatusBar } from './components/StatusBar';
import { Toolbar } from './components/Toolbar';
import { VersionHistory } from './components/VersionHistory';
import styles from './components/editor.module.css';
import { useDraftAutosave } from './hooks/useDraftAutosave';
import { useEditorCommands } from './hooks/useEditorCommands';
import { useKeyboardShortcuts } from './hooks/useKeyboardShortcuts';
import { useLibrarySync } from './hooks/useLibrarySync';
import { useProgramServer } from './hooks/useProgramServer';
import { clearDrafts, isDirty, offerDraft, persistDraft, useDrafts } from './store/drafts';
import { useEditorStore } from './store/editorStore';
import { useServerProgram } from './store/serverProgram';
import { TryPanel } from './try/TryPanel';

function Editor({ routeProgramId }: { routeProgramId: number | null }) {
  const commands = useEditorCommands();
  useKeyboardShortcuts(commands);
  const server = useProgramServer();
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState('');
  const [history, setHistory] = useState(false);
  const [trying, setTrying] = useState(false);
  const { programId, version } = useServerProgram();
  useDraftAutosave();
  const offer = useDrafts((s) => s.offer);
  // undefined: closed; null: open on a new model; a name: open on that model.
  const [designer, setDesigner] = useState<string | null | undefined>(undefined);
  useLibrarySync();
  // /editor/<id> opens that program's latest version, once per id, and offers a draft of
  // it kept in this browser when one is newer; /editor offers a kept never-saved program.
  const opened = useRef<number | null>(null);
  useEffect(() => {
    if (routeProgramId === null) {
      if (useServerProgram.getState().programId === null && !isDirty()) offerDraft(null, null);
      return;
    }
    if (opened.current === routeProgramId) return;
    opened.current = routeProgramId;
    if (useServerProgram.getState().programId === routeProgramId) return;
    void server.open(routeProgramId).then((version) => {
      if (version && useServerProgram.getState().programId === routeProgramId)
        offerDraft(routeProgramId, version.savedAt);
    });
  }, [routeProgramId, server]);
  const restore = () => {
    if (!offer) return;
    useDrafts.setState({ offer: null });
    if (useEditorStore.getState().run(restoreDraft, { graph: offer.graph })) {
      useEditorStore.getState().notify('info', 'Restored the unsaved changes (undo goes back).');
      commands.fitView();
    }
  };
  const discard = () => {
    if (!offer) return;
    clearDrafts(offer.programId);
    useDrafts.setState({ offer: null });
    persistDraft();
  };
  const save = async () => {
    setSaving(true);
    try {
      if (await server.save(message.trim())) setMessage('');
    } finally {
      setSaving(false);
    }
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        void save();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });
  const firstModel = useEditorStore((s) => s.dataModels[0]?.name ?? null);
  return (
    <div className={styles.editor}>
      <Toolbar
        commands={{
          ...commands,
          newProgram: () => {
            useDrafts.setState({ offer: null });
            useServerProgram.setState({ programId: null, version: null, problems: [] });
            commands.newProgram();
          },
        }}
        onOpenModels={() => setDesigner(firstModel)}
        onSave={() => void save()}
        message={message}
        onMessageChange={setMessage}
        onHistory={() => setHistory(true)}
        onTry={() => setTrying((open) => !open)}
        trying={trying}
        saving={saving}
        version={version}
      />
      <div className={styles.workspace}>
        <Palette onAdd={commands.add} />
        <Canvas />
        {trying ? (
          <TryPanel onClose={() => setTrying(false)} />
        ) : (
          <Inspector onEditModel={(name) => setDesigner(name)} onCopy={commands.copy} />
        )}
      </div>
      <StatusBar />
      {offer && offer.programId === programId && (
        <DraftPrompt draft={offer} version={version} onRestore={restore} onDiscard={discard} />
      )}
      {designer !== undefined && (
        <DataModelDesigner initialName={designer} onClose={() => setDesigner(undefined)} />
      )}
      {history && programId !== null && (
        <VersionHistory
          programId={programId}
          current={version}
          onClose={() => setHistory(false)}
          onOpen={(number) => {
            setHistory(false);
            void server.open(programId, number);
          }}
        />
      )}
    </div>
  );
}

/** The program editor page (routes /editor and /editor/:programId). */
export default function EditorPage() {
  const { programId } = useParams();
  const id = programId && /^\d+$/.test(programId) ? Number(programId) : null;
  return (
    <ReactFlowProvider>
      <Editor routeProgramId={id} />
    </ReactFlowProvider>
  );
}
