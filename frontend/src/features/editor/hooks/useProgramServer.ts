import { useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { versionsKey } from '@/lib/api/ops/programsVersionsList';
import { createProgram } from '../api/programsCreate';
import { createVersion } from '../api/programsVersionsCreate';
import { fetchProgram } from '../api/programsRetrieve';
import { fetchVersion } from '@/lib/api/ops/programsVersionsRetrieve';
import { loadDocument } from '../actions/loadDocument';
import type { EditorLayout } from '../model/document';
import { graphToDocument } from '../model/graph';
import { programProblems } from '../model/rules';
import { useEditorStore } from '../store/editorStore';
import { locateProblems, useServerProgram } from '../store/serverProgram';

/** Open a program version from the API onto the canvas, and save the canvas as a new version. */
export function useProgramServer() {
  const navigate = useNavigate();
  const client = useQueryClient();
  return useMemo(() => {
    const open = async (programId: number, number?: number) => {
      const store = useEditorStore.getState();
      try {
        const wanted = number ?? (await fetchProgram(programId)).latest_version;
        if (wanted === null || wanted === undefined) {
          store.notify('error', 'This program has no version yet.');
          return;
        }
        const version = await fetchVersion(programId, wanted);
        const layout = (version.layout as EditorLayout | null) ?? null;
        const hasLayout = Boolean(layout && Object.keys(layout.nodes ?? {}).length);
        if (
          !store.run(loadDocument, {
            document: version.document,
            layout: hasLayout ? layout : null,
          })
        )
          return;
        useEditorStore.temporal.getState().clear();
        useServerProgram.setState({ programId, version: version.number, problems: [] });
        useEditorStore.getState().notify('info', `Opened version ${version.number}.`);
      } catch (error) {
        store.notify('error', `Cannot open the program: ${(error as Error).message}`);
      }
    };
    const save = async (message = '') => {
      const state = useEditorStore.getState();
      const problems = programProblems(state);
      if (problems.length > 0) {
        state.notify('error', `Cannot save yet: ${problems[0]?.message}`);
        return false;
      }
      const { document, layout } = graphToDocument(state);
      const { programId } = useServerProgram.getState();
      try {
        if (programId === null) {
          const program = await createProgram({ name: state.meta.name, document, layout, message });
          useServerProgram.setState({
            programId: program.id,
            version: program.latest_version ?? 1,
            problems: [],
          });
          navigate(`/editor/${program.id}`, { replace: true });
          state.notify('info', `Saved ${program.name} (version 1).`);
        } else {
          const version = await createVersion({ programId, document, layout, message });
          useServerProgram.setState({ version: version.number, problems: [] });
          state.notify('info', `Saved version ${version.number}.`);
        }
        await client.invalidateQueries({
          queryKey: versionsKey(useServerProgram.getState().programId ?? 0),
        });
        return true;
      } catch (error) {
        if (error instanceof ApiError) {
          const located = locateProblems(error.problems, document);
          useServerProgram.setState({ problems: located });
          state.notify('error', `The server refused the program: ${error.message}`);
        } else state.notify('error', `Saving failed: ${(error as Error).message}`);
        return false;
      }
    };
    return { open, save };
  }, [navigate, client]);
}

export type ProgramServer = ReturnType<typeof useProgramServer>;
