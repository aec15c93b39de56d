import type { JsonSchema } from '@/lib/datamodel/schema';
import { cloneJson, type JsonObject } from '@/lib/json';
import {
  aKind,
  decisionInstructions,
  defaultInstructions,
  kindOfClass,
  variableName,
  type GeneratorConfig,
  type SerializedObject,
} from '../model/document';
import type { BranchNodeData, ProgramNode } from '../model/graph';
import { firstSamplingProblem } from '../model/sampling';
import { change, defineAction, refuse } from './types';

/** What the inspector changes in a Branch's decision or in a module a label holds. */
export type HeldModulePatch = Partial<
  Pick<
    GeneratorConfig,
    | 'description'
    | 'use_inputs_schema'
    | 'use_outputs_schema'
    | 'temperature'
    | 'max_tokens'
    | 'top_p'
    | 'top_k'
    | 'reasoning_effort'
  >
> & {
  /** The litellm model name of its language model. */
  model?: string;
  /** Its instructions; empty goes back to the module's default ones. */
  instructions?: string;
};

/** `'decision'`: the Branch's own Decision; a number: the module label `slot` holds. */
export type BranchPart = 'decision' | number;

export type UpdateBranchModuleArgs = { nodeId: string; part: BranchPart; patch: HeldModulePatch };

/** The kinds of held module whose settings and instructions the inspector edits. */
const EDITABLE = ['Generator', 'ChainOfThought', 'Decision', 'MultiDecision'] as const;

/**
 * Change the settings or the instructions of a Branch's decision, or of the module one of its
 * labels holds (a Generator, ChainOfThought or Decision): the same settings a drawn Generator
 * has. The instructions are both the module's initial ones (its config) and its trainable
 * variable's, as `updateModule` sets them for a drawn module.
 */
export const updateBranchModule = defineAction<UpdateBranchModuleArgs>({
  name: 'updateBranchModule',
  label: 'Edit branch module',
  perform: (state, { nodeId, part, patch }) => {
    const node = state.nodes.find((n) => n.id === nodeId);
    if (!node) return refuse('That module no longer exists.');
    if (node.data.kind !== 'Branch') return refuse(`${aKind(node.data.kind)} holds no branches.`);
    const sampling = firstSamplingProblem(patch);
    if (sampling) return refuse(sampling);
    if (patch.model !== undefined && !patch.model.trim()) return refuse('A model name is needed.');

    const next = cloneJson(node.data) as BranchNodeData;
    let config: JsonObject;
    let owner: string;
    let fallback: string;
    if (part === 'decision') {
      config = next.config as unknown as JsonObject;
      owner = `${next.config.name}_decision`;
      fallback = decisionInstructions(next.config.decision_type, next.config.labels);
    } else {
      const label = next.config.labels[part];
      if (label === undefined) return refuse('There is no such label.');
      const held: SerializedObject | null | undefined = next.config.branches[part];
      if (!held) return refuse(`The label '${label}' holds no module: it passes its input on.`);
      const kind = kindOfClass(held.class_name);
      if (!kind || !(EDITABLE as readonly string[]).includes(kind)) {
        return refuse(
          `The label '${label}' holds ${kind ? aKind(kind) : held.class_name}; only a ` +
            "Generator's, a ChainOfThought's or a Decision's settings are edited here.",
        );
      }
      config = held.config;
      owner = String(config.name);
      fallback =
        kind === 'Decision' || kind === 'MultiDecision'
          ? decisionInstructions(kind, config.labels as string[])
          : defaultInstructions(kind, (config.data_model as { schema: JsonSchema }).schema);
    }

    const { model, instructions, ...settings } = patch;
    Object.assign(config, settings);
    if (model !== undefined) {
      const languageModel = config.language_model as unknown as SerializedObject;
      config.language_model = {
        ...languageModel,
        config: { ...languageModel.config, model: model.trim() },
      };
    }
    if (instructions !== undefined) {
      const written = instructions.trim() ? instructions : null;
      config.instructions = written;
      const variable = next.variables[variableName(owner)];
      if (variable) variable.instructions = written ?? fallback;
    }
    return change({
      nodes: state.nodes.map((n) => (n.id === nodeId ? ({ ...n, data: next } as ProgramNode) : n)),
    });
  },
});
