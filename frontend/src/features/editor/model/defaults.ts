import type { SavedDataModel } from './document';
import {
  critiqueInstructions,
  decisionInstructions,
  DEFAULT_LANGUAGE_MODEL,
  defaultInstructions,
  editorClassPath,
  emptyVariable,
  isPlainKind,
  MODULE_CLASSES,
  variableName,
  type BranchConfig,
  type DecisionConfig,
  type GeneratorConfig,
  type ModuleKind,
  type PlainConfig,
  type SelfCritiqueConfig,
} from './document';
import {
  emptyMeta,
  makeEdge,
  newId,
  type EditorGraph,
  type ProgramNode,
  type ProgramNodeData,
} from './graph';
import { cloneJson } from '@/lib/json';
import type { XYPosition } from '@xyflow/react';

/** The models a new editor starts with: a question in, an answer out. */
export const STARTER_MODELS: SavedDataModel[] = [
  {
    name: 'Query',
    class: editorClassPath('Query'),
    schema: {
      additionalProperties: false,
      properties: { query: { description: "The user's question", title: 'Query', type: 'string' } },
      required: ['query'],
      title: 'Query',
      type: 'object',
    },
  },
  {
    name: 'Answer',
    class: editorClassPath('Answer'),
    schema: {
      additionalProperties: false,
      properties: {
        answer: { description: 'The correct answer', title: 'Answer', type: 'string' },
      },
      required: ['answer'],
      title: 'Answer',
      type: 'object',
    },
  },
];

/** `unique_name` in optimizer_core: `generator`, then `generator_1`, `generator_2`... */
export function uniqueName(base: string, taken: Iterable<string>): string {
  const names = new Set(taken);
  if (!names.has(base)) return base;
  for (let i = 1; ; i += 1) {
    const candidate = `${base}_${i}`;
    if (!names.has(candidate)) return candidate;
  }
}

export function createNode(
  kind: ModuleKind,
  name: string,
  dataModel: SavedDataModel,
  position: XYPosition,
): ProgramNode {
  const { module, class_name } = MODULE_CLASSES[kind];
  const envelope = { module, class_name, registered_name: `${module}.${class_name}` };
  const base = { name, description: null, trainable: true, data_model: cloneJson(dataModel) };
  const id = newId(kind.toLowerCase());
  if (kind === 'Input') {
    return { id, type: 'Input', position, data: { kind, envelope, config: base } };
  }
  const data = otherKindData(kind, name, envelope);
  if (data) return { id, type: kind, position, data } as ProgramNode;
  // Key order follows Generator.get_config so saved documents read the same as the engine's.
  const config: GeneratorConfig = {
    ...base,
    language_model: cloneJson(DEFAULT_LANGUAGE_MODEL),
    instructions: null,
    use_inputs_schema: false,
    use_outputs_schema: false,
    temperature: null,
    max_tokens: null,
    top_p: null,
    top_k: null,
    reasoning_effort: null,
  };
  const variable = emptyVariable(defaultInstructions(kind, dataModel.schema));
  return { id, type: kind, position, data: { kind, envelope, config, variable } } as ProgramNode;
}

/** The settings a Decision passes on to its Generator, in `Generator.get_config`'s order. */
function generatorSettings() {
  return {
    language_model: cloneJson(DEFAULT_LANGUAGE_MODEL),
    instructions: null,
    use_inputs_schema: false,
    use_outputs_schema: false,
    return_inputs: false,
    temperature: null,
    max_tokens: null,
    top_p: null,
    top_k: null,
    reasoning_effort: null,
  };
}

export const STARTER_LABELS = ['yes', 'no'];
export const STARTER_QUESTION = 'Which label fits the input?';

/** A new module of a kind without a data model of its own; null for Generators. */
function otherKindData(
  kind: ModuleKind,
  name: string,
  envelope: ProgramNodeData['envelope'],
): ProgramNodeData | null {
  const labels = [...STARTER_LABELS];
  if (kind === 'Decision' || kind === 'MultiDecision') {
    // `Decision.get_config`: question and labels first.
    const config: DecisionConfig = {
      question: STARTER_QUESTION,
      labels,
      name,
      description: null,
      trainable: true,
      ...generatorSettings(),
    };
    return {
      kind,
      envelope,
      config,
      variable: emptyVariable(decisionInstructions(kind, labels)),
    };
  }
  if (kind === 'Branch') {
    const { language_model, ...settings } = generatorSettings();
    const config: BranchConfig = {
      name,
      description: null,
      trainable: true,
      labels,
      branches: labels.map(() => null),
      decision_type: 'Decision',
      inject_decision: true,
      return_decision: true,
      question: STARTER_QUESTION,
      language_model,
      ...settings,
    };
    const variables = {
      [variableName(`${name}_decision`)]: emptyVariable(decisionInstructions('Decision', labels)),
    };
    return { kind, envelope, config, variables };
  }
  if (kind === 'SelfCritique') {
    const config: SelfCritiqueConfig = {
      name,
      description: null,
      trainable: true,
      language_model: cloneJson(DEFAULT_LANGUAGE_MODEL),
      instructions: null,
      return_reward: true,
      return_inputs: null,
      revise: false,
      revision_instructions: null,
    };
    const variables = {
      [variableName(`${name}_critic`)]: emptyVariable(critiqueInstructions(true)),
    };
    return { kind, envelope, config, variables };
  }
  if (isPlainKind(kind)) {
    // Masks are not trainable by default (modules/masking.py); the others are (Module).
    const isMask = kind === 'InMask' || kind === 'OutMask';
    const config: PlainConfig = isMask
      ? { name, description: null, trainable: false, mask: [] }
      : { name, description: null, trainable: true };
    return { kind, envelope, config };
  }
  return null;
}

/** What a new editor shows: a question in, an answer out, ready to extend. */
export function starterGraph(): EditorGraph {
  const [query, answer] = STARTER_MODELS as [SavedDataModel, SavedDataModel];
  const input = createNode('Input', 'input_layer', query, { x: 0, y: 40 });
  const generator = createNode('Generator', 'generator', answer, { x: 340, y: 0 });
  return {
    nodes: [input, generator],
    edges: [makeEdge(input.id, generator.id)],
    meta: emptyMeta('my_program'),
  };
}
