import { create } from 'zustand';
import type { FieldProblem } from '@/lib/api/errors';

/** A problem the server found in a saved document, tied to a module when its path names one. */
export type ServerProblem = FieldProblem & { module: string | null };

type ServerProgramState = {
  /** The program the canvas was opened from / saved to; null for a new, unsaved one. */
  programId: number | null;
  /** Its version on the canvas (the last opened or saved). */
  version: number | null;
  problems: ServerProblem[];
};

export const useServerProgram = create<ServerProgramState>()(() => ({
  programId: null,
  version: null,
  problems: [],
}));

const MODULE_PATH = /^program\.modules\[(\d+)\]/;

/** Attach each server problem to the module its path names (`program.modules[i]...`). */
export function locateProblems(problems: FieldProblem[], document: unknown): ServerProblem[] {
  const modules =
    (document as { program?: { modules?: { name?: string }[] } } | null)?.program?.modules ?? [];
  return problems.map((problem) => {
    const index = MODULE_PATH.exec(problem.path)?.[1];
    const name = index === undefined ? undefined : modules[Number(index)]?.name;
    return { ...problem, module: typeof name === 'string' ? name : null };
  });
}
