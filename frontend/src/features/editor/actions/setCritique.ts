import { cloneJson } from '@/lib/json';
import {
  aKind,
  critiqueInstructions,
  emptyVariable,
  revisionInstructions,
  variableName,
} from '../model/document';
import type { ProgramNode } from '../model/graph';
import { modelKeys, OutputModels } from '../model/schemas';
import { change, defineAction, refuse } from './types';

export type CritiqueArgs = { nodeId: string; revise?: boolean; return_reward?: boolean };

/**
 * Turn a SelfCritique's revision or grading on or off. Revising adds the reviser's variable
 * (`<name>_reviser/state`, its instructions naming the last input's fields, as the engine
 * builds it when wired); not revising drops it. The critic's instructions follow the grading
 * while they are the default.
 */
export const setCritique = defineAction<CritiqueArgs>({
  name: 'setCritique',
  label: 'Edit self-critique',
  perform: (state, { nodeId, revise, return_reward }) => {
    const node = state.nodes.find((n) => n.id === nodeId);
    if (!node) return refuse('That module no longer exists.');
    if (node.data.kind !== 'SelfCritique')
      return refuse(`${aKind(node.data.kind)} does not critique.`);
    const data = cloneJson(node.data);
    const { config } = data;
    const critic = data.variables[variableName(`${config.name}_critic`)];
    if (return_reward !== undefined && return_reward !== config.return_reward) {
      if (critic && critic.instructions === critiqueInstructions(config.return_reward))
        critic.instructions = critiqueInstructions(return_reward);
      config.return_reward = return_reward;
    }
    if (revise !== undefined && revise !== config.revise) {
      const reviser = variableName(`${config.name}_reviser`);
      config.revise = revise;
      if (revise) {
        if (config.return_inputs === true) config.return_inputs = null;
        const last = new OutputModels(state).inputs(nodeId).at(-1);
        const instructions = config.revision_instructions ?? revisionInstructions(modelKeys(last));
        data.variables[reviser] = emptyVariable(instructions);
      } else {
        delete data.variables[reviser];
      }
    }
    return change({
      nodes: state.nodes.map((n) => (n.id === nodeId ? ({ ...n, data } as ProgramNode) : n)),
    });
  },
});
