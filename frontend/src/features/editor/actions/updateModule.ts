import { cloneJson } from '@/lib/json';
import {
  aKind,
  decisionInstructions,
  defaultInstructions,
  type DecisionConfig,
  type GeneratorConfig,
  type SavedDataModel,
  type VariableJson,
} from '../model/document';
import {
  moduleName,
  type DecisionNodeData,
  type GeneratorNodeData,
  type ProgramNode,
} from '../model/graph';
import { renamedData } from '../model/rename';
import { firstSamplingProblem } from '../model/sampling';
import { change, defineAction, refuse } from './types';

export type ModulePatch = Partial<Omit<GeneratorConfig, 'data_model'>>;

export type UpdateModuleArgs = {
  nodeId: string;
  config?: ModulePatch;
  variable?: Partial<Pick<VariableJson, 'instructions' | 'examples'>>;
};

/** Change a module's settings or its trainable variable from the inspector. */
export const updateModule = defineAction<UpdateModuleArgs>({
  name: 'updateModule',
  label: 'Edit module',
  perform: (state, { nodeId, config = {}, variable }) => {
    const node = state.nodes.find((n) => n.id === nodeId);
    if (!node) return refuse('That module no longer exists.');
    const oldName = moduleName(node);
    const newName = config.name ?? oldName;
    if (newName !== oldName) {
      if (!/^\S(.*\S)?$/.test(newName))
        return refuse('A module name cannot be empty or start or end with spaces.');
      if (newName.includes('/'))
        return refuse('A module name cannot contain "/" (it names the variable).');
      if (state.nodes.some((n) => n.id !== nodeId && moduleName(n) === newName)) {
        return refuse(`Another module is already named '${newName}'.`);
      }
    }
    const sampling = firstSamplingProblem(config);
    if (sampling && node.data.kind !== 'Input') return refuse(sampling);
    if (node.data.kind === 'Input') {
      const allowed = ['name', 'description', 'trainable'] as const;
      const extra = Object.keys(config).filter((k) => !(allowed as readonly string[]).includes(k));
      if (extra.length > 0 || variable)
        return refuse(`An Input has no ${extra[0] ?? 'variable'} setting.`);
    }
    if (variable && !('variable' in node.data))
      return refuse(`${aKind(node.data.kind)} has no variable to edit here.`);
    const data = renamedData(node.data, newName);
    Object.assign(data.config, config);
    if ('variable' in data) {
      if (variable) Object.assign(data.variable, cloneJson(variable));
      if (config.instructions !== undefined && variable?.instructions === undefined) {
        data.variable.instructions = config.instructions ?? ownDefaultInstructions(data);
      }
    }
    const rename = (names: string[]) => names.map((n) => (n === oldName ? newName : n));
    return change({
      nodes: state.nodes.map((n) => (n.id === nodeId ? ({ ...n, data } as ProgramNode) : n)),
      meta:
        newName === oldName
          ? state.meta
          : {
              ...state.meta,
              inputOrder: rename(state.meta.inputOrder),
              outputOrder: rename(state.meta.outputOrder),
            },
    });
  },
});

/**
 * Give a module another DataModel. Instructions still equal to the old default follow the
 * new model's keys; instructions someone wrote (or an optimizer trained) stay.
 */
export const setDataModel = defineAction<{ nodeId: string; dataModel: SavedDataModel }>({
  name: 'setDataModel',
  label: 'Set data model',
  perform: (state, { nodeId, dataModel }) => {
    const node = state.nodes.find((n) => n.id === nodeId);
    if (!node) return refuse('That module no longer exists.');
    return change({
      nodes: state.nodes.map((n) => (n.id === nodeId ? withDataModel(n, dataModel) : n)),
    });
  },
});

export function withDataModel(node: ProgramNode, dataModel: SavedDataModel): ProgramNode {
  const data = cloneJson(node.data);
  if (data.kind === 'Generator' || data.kind === 'ChainOfThought') {
    const oldDefault = defaultInstructions(data.kind, data.config.data_model.schema);
    if (data.variable.instructions === oldDefault) {
      data.variable.instructions = defaultInstructions(data.kind, dataModel.schema);
    }
    data.config.data_model = cloneJson(dataModel);
  } else if (data.kind === 'Input') {
    data.config.data_model = cloneJson(dataModel);
  } else {
    return node;
  }
  return { ...node, data } as ProgramNode;
}

/** The instructions a module holding one variable starts with when none are written. */
function ownDefaultInstructions(data: GeneratorNodeData | DecisionNodeData): string {
  if (data.kind === 'Generator' || data.kind === 'ChainOfThought') {
    return defaultInstructions(data.kind, (data.config as GeneratorConfig).data_model.schema);
  }
  return decisionInstructions(data.kind, (data.config as DecisionConfig).labels);
}

/** Rename or describe the program itself. */
export const updateProgram = defineAction<{ name?: string; description?: string | null }>({
  name: 'updateProgram',
  label: 'Edit program',
  perform: (state, patch) => {
    if (patch.name !== undefined && !patch.name.trim()) return refuse('The program needs a name.');
    return change({ meta: { ...state.meta, ...patch } });
  },
});

/**
 * Declare a module that feeds others as a program output too (a module nothing reads
 * from always is one).
 */
export const setProgramOutput = defineAction<{ nodeId: string; output: boolean }>({
  name: 'setProgramOutput',
  label: 'Program output',
  perform: (state, { nodeId, output }) => {
    const node = state.nodes.find((n) => n.id === nodeId);
    if (!node || node.data.kind === 'Input') return refuse('An Input cannot be a program output.');
    const name = moduleName(node);
    if (!output && !state.edges.some((e) => e.source === nodeId)) {
      return refuse(`'${name}' feeds no other module, so it is always an output.`);
    }
    const rest = state.meta.outputOrder.filter((n) => n !== name);
    return change({ meta: { ...state.meta, outputOrder: output ? [...rest, name] : rest } });
  },
});
