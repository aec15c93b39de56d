import { useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '@/lib/api/errors';
import { programsKey } from '@/lib/api/ops/programsList';
import { versionsKey } from '@/lib/api/ops/programsVersionsList';
import { createProgram } from '../api/programsCreate';
import { descriptionPatch, updateProgram } from '../api/programsPartialUpdate';
import { createVersion } from '../api/programsVersionsCreate';
import { fetchProgram } from '../api/programsRetrieve';
import { fetchVersion } from '@/lib/api/ops/programsVersionsRetrieve';
import { loadDocument } from '../actions/loadDocument';
import type { EditorLayout } from '../model/document';
import { graphToDocument } from '../model/graph';
import { programProblems } from '../model/rules';
import {
  clearDrafts,
  draftGraph,
  flushDraft,
  markSaved,
  persistDraft,
  useDrafts,
} from '../store/drafts';
import { useEditorStore } from '../store/editorStore';
import { locateProblems, useServerProgram } from '../store/serverProgram';

/** The version opened: its number and when it was saved (ms since the epoch). */
export type OpenedVersion = { number: number; savedAt: number };

/** Open a program version from the API onto the canvas, and save the canvas as a new version. */
export function useProgramServer() {
  const navigate = useNavigate();
  const client = useQueryClient();
  return useMemo(() => {
    const open = async (programId: number, number?: number): Promise<OpenedVersion | null> => {
      const store = useEditorStore.getState();
      // Edits to the program on the canvas go to its draft before another replaces it.
      flushDraft();
      useDrafts.setState({ offer: null });
      try {
        const program = number === undefined ? await fetchProgram(programId) : null;
        const wanted = number ?? program?.latest_version;
        if (wanted === null || wanted === undefined) {
          store.notify('error', 'This program has no version yet.');
          return null;
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
          return null;
        useEditorStore.temporal.getState().clear();
        useServerProgram.setState({ programId, version: version.number, problems: [] });
        const { baseline } = useDrafts.getState();
        const known = baseline?.programId === programId ? baseline.description : null;
        markSaved(
          useEditorStore.getState(),
          programId,
          version.number,
          program?.description ?? known,
        );
        useEditorStore.getState().notify('info', `Opened version ${version.number}.`);
        const savedAt = Date.parse(version.created_at);
        return { number: version.number, savedAt: Number.isNaN(savedAt) ? 0 : savedAt };
      } catch (error) {
        store.notify('error', `Cannot open the program: ${(error as Error).message}`);
        return null;
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
      const saved = draftGraph(state);
      const description = state.meta.description ?? '';
      const { programId } = useServerProgram.getState();
      try {
        if (programId === null) {
          const program = await createProgram({
            name: state.meta.name,
            description,
            document,
            layout,
            message,
          });
          const number = program.latest_version ?? 1;
          useServerProgram.setState({ programId: program.id, version: number, problems: [] });
          clearDrafts(null);
          markSaved(saved, program.id, number, program.description ?? description);
          navigate(`/editor/${program.id}`, { replace: true });
          state.notify('info', `Saved ${program.name} (version 1).`);
        } else {
          const version = await createVersion({ programId, document, layout, message });
          useServerProgram.setState({ version: version.number, problems: [] });
          clearDrafts(programId);
          const { baseline } = useDrafts.getState();
          const stored = baseline?.programId === programId ? baseline.description : null;
          markSaved(saved, programId, version.number, stored);
          state.notify('info', `Saved version ${version.number}.`);
          // The programs list shows the Program row's description, which versions do not carry.
          const patch = descriptionPatch(description, stored);
          if (patch) {
            try {
              await updateProgram(programId, patch);
              markSaved(saved, programId, version.number, patch.description);
            } catch (error) {
              state.notify(
                'error',
                `Saved version ${version.number}, but not the description: ${(error as Error).message}`,
              );
            }
          }
        }
        // Edits made while the request was out stay in a draft.
        persistDraft();
        await client.invalidateQueries({ queryKey: programsKey });
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
