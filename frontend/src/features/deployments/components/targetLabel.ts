import type { DeploymentTarget } from '../api/types';

/** What a target serves, in words: "run #7 trained" or "capitals v3". */
export function targetLabel(target: DeploymentTarget | null | undefined): string {
  if (!target) return '—';
  const program = `${target.program_name} v${target.version_number}`;
  if (target.run === null) return program;
  return `run #${target.run}${target.run_name && target.run_name !== `run ${target.run}` ? ` ${target.run_name}` : ''} (${program})`;
}
