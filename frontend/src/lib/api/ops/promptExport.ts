import { useQuery } from '@tanstack/react-query';
import { api } from '../client';
import { unwrap } from '../errors';

/** One Generator's prompt, as the engine sends it (the input's JSON replaced by a placeholder). */
export type GeneratorPrompt = {
  name: string;
  messages: { role: string; content: string }[];
  text: string;
  response_format: Record<string, unknown>;
  temperature: number | null;
};

/** What "Export prompt" gives (`studio.programs.prompts.export_prompts`). */
export type PromptExport = {
  input_placeholder: string;
  generators: GeneratorPrompt[];
  python: string;
  document: Record<string, unknown>;
};

/** Whose prompts: a saved program version, or a succeeded run's trained program. */
export type PromptSource =
  { kind: 'version'; programId: number; number: number } | { kind: 'run'; runId: number };

export async function fetchPrompt(source: PromptSource): Promise<PromptExport> {
  const body =
    source.kind === 'version'
      ? unwrap(
          await api.GET('/api/programs/{id}/versions/{number}/prompt/', {
            params: { path: { id: source.programId, number: source.number } },
          }),
        )
      : unwrap(await api.GET('/api/runs/{id}/prompt/', { params: { path: { id: source.runId } } }));
  return body as unknown as PromptExport;
}

/** The name a download of this export gets: `program-5-v2`, `run-7`. */
export function promptFileStem(source: PromptSource): string {
  return source.kind === 'version'
    ? `program-${source.programId}-v${source.number}`
    : `run-${source.runId}`;
}

export function usePromptExport(source: PromptSource | null) {
  return useQuery({
    queryKey: ['prompt-export', source],
    queryFn: () => fetchPrompt(source as PromptSource),
    enabled: source !== null,
    staleTime: Infinity, // versions and trained documents never change
  });
}
