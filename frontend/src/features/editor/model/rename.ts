/**
 * Renaming a module whose Generators are named after it (a Branch's `<name>_decision`, a
 * SelfCritique's `<name>_critic` / `<name>_reviser`) or that holds named modules (a Branch's
 * branches): their variables' names follow, as the engine would name them.
 */
import { cloneJson } from '@/lib/json';
import { uniqueName } from './defaults';
import { ownedVariableNames, type SerializedObject, type VariableJson } from './document';
import type { ProgramNodeData } from './graph';

function serialized(data: ProgramNodeData): SerializedObject {
  return { ...data.envelope, config: data.config as unknown as SerializedObject['config'] };
}

/** The names of the modules a Branch holds (its branches), in order. */
export function heldModuleNames(data: ProgramNodeData): string[] {
  if (data.kind !== 'Branch') return [];
  return data.config.branches.flatMap((b) => (b ? [String(b.config.name)] : []));
}

/**
 * A copy of `data` named `name`; with `taken`, the modules it holds get fresh names too
 * (a pasted copy must not repeat the original's). Variables are re-keyed to match.
 */
export function renamedData(
  data: ProgramNodeData,
  name: string,
  taken?: string[],
): ProgramNodeData {
  const next = cloneJson(data);
  const before = ownedVariableNames(serialized(data));
  next.config.name = name;
  if (taken && next.kind === 'Branch') {
    for (const branch of next.config.branches) {
      if (!branch) continue;
      const fresh = uniqueName(String(branch.config.name).replace(/_\d+$/, ''), taken);
      taken.push(fresh);
      branch.config.name = fresh;
    }
  }
  if ('variables' in next) {
    const after = ownedVariableNames(serialized(next));
    const renamed: Record<string, VariableJson> = {};
    for (const [key, value] of Object.entries(next.variables)) {
      const index = before.indexOf(key);
      renamed[index === -1 ? key : (after[index] ?? key)] = value;
    }
    next.variables = renamed;
  }
  return next;
}
