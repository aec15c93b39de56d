/**
 * The saved program document, as `optimizer_core.Program.to_json()` writes it.
 *
 * Shapes follow optimizer_core/programs/program.py (`to_json`, `get_config`),
 * modules/{input,generator}.py (`get_config`) and modules/serialization.py
 * (`serialize_data_model`). Keys the editor does not know are carried through untouched.
 */
import type { Json, JsonObject } from '@/lib/json';
import type { JsonSchema } from '@/lib/datamodel/schema';
import { isJsonObject, pythonJsonDumps } from '@/lib/json';
import { schemaKeys } from '@/lib/datamodel/schema';

export const FORMAT_VERSION = 1;
export const DOCUMENT_KIND = 'optimizer_core.program';

/** `serialize_object(obj)` from optimizer_core/saving/object_registry.py. */
export type SerializedObject = {
  module: string;
  class_name: string;
  registered_name: string;
  config: JsonObject;
};

/** `serialize_data_model(cls)`: the class path is used on load when it imports. */
export type SavedDataModel = {
  name: string;
  class: string;
  schema: JsonSchema;
};

export type ModuleConfigBase = {
  name: string;
  description: string | null;
  trainable: boolean;
  data_model: SavedDataModel;
};

export type InputConfig = ModuleConfigBase;

export type GeneratorConfig = ModuleConfigBase & {
  language_model: SerializedObject;
  instructions: string | null;
  use_inputs_schema: boolean;
  use_outputs_schema: boolean;
  /** The output holds the inputs too (optional: documents before it omit it). */
  return_inputs?: boolean;
  temperature: number | null;
  /** Sampling settings beside `temperature` (null or absent: not set, so not sent). */
  max_tokens?: number | null;
  top_p?: number | null;
  top_k?: number | null;
  reasoning_effort?: ReasoningEffort | null;
};

/** `REASONING_EFFORTS` of optimizer_core/language_models/language_model.py. */
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high', 'disable', 'none'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export type Example = { inputs: JsonObject; outputs: JsonObject; reward?: number | null };

/** A Generator's variable: trainable fields plus the optimizer's bookkeeping. */
export type VariableJson = {
  instructions: string;
  examples: Example[];
  predictions: Json[];
  candidates: Json[];
  best_candidates: Json[];
  nb_visit: number;
  cumulative_reward: number;
  [key: string]: Json | undefined;
};

/** What an `inbound` (or `outputs`) entry names: a module, or output `output` of one that
 * has several (a Branch's slot per label), as `Program.get_config` writes it. */
export type Wire = string | { module: string; output: number };

export type ModuleEntry = {
  name: string;
  module: SerializedObject;
  inbound: Wire[];
};

export type ProgramConfig = {
  name: string;
  description: string | null;
  modules: ModuleEntry[];
  inputs: string[];
  outputs: Wire[];
  single_input: boolean;
  single_output: boolean;
};

/** Where each module sits on the canvas, by module name. Not read by optimizer_core. */
export type EditorLayout = {
  version: 1;
  nodes: Record<string, { x: number; y: number }>;
};

export type ProgramDocument = {
  format_version: number;
  kind: typeof DOCUMENT_KIND;
  program: ProgramConfig;
  compile_config: JsonObject | null;
  variables: Record<string, VariableJson>;
  optimizer_state: JsonObject | null;
};

/** The node kinds the editor shows; each maps to one optimizer_core module class. */
export const MODULE_CLASSES = {
  Input: {
    module: 'optimizer_core.modules.input',
    class_name: 'InputLayer',
    baseName: 'input_layer',
  },
  Generator: {
    module: 'optimizer_core.modules.generator',
    class_name: 'Generator',
    baseName: 'generator',
  },
  ChainOfThought: {
    module: 'optimizer_core.modules.chain_of_thought',
    class_name: 'ChainOfThought',
    baseName: 'chain_of_thought',
  },
  Decision: {
    module: 'optimizer_core.modules.decision',
    class_name: 'Decision',
    baseName: 'decision',
  },
  MultiDecision: {
    module: 'optimizer_core.modules.decision',
    class_name: 'MultiDecision',
    baseName: 'multi_decision',
  },
  Branch: {
    module: 'optimizer_core.modules.branch',
    class_name: 'Branch',
    baseName: 'branch',
  },
  SelfCritique: {
    module: 'optimizer_core.modules.self_critique',
    class_name: 'SelfCritique',
    baseName: 'self_critique',
  },
  Concat: { module: 'optimizer_core.modules.merging', class_name: 'Concat', baseName: 'concat' },
  And: { module: 'optimizer_core.modules.merging', class_name: 'And', baseName: 'and' },
  Or: { module: 'optimizer_core.modules.merging', class_name: 'Or', baseName: 'or' },
  Xor: { module: 'optimizer_core.modules.merging', class_name: 'Xor', baseName: 'xor' },
  Not: { module: 'optimizer_core.modules.merging', class_name: 'Not', baseName: 'not' },
  InMask: { module: 'optimizer_core.modules.masking', class_name: 'InMask', baseName: 'in_mask' },
  OutMask: {
    module: 'optimizer_core.modules.masking',
    class_name: 'OutMask',
    baseName: 'out_mask',
  },
  Identity: {
    module: 'optimizer_core.modules.identity',
    class_name: 'Identity',
    baseName: 'identity',
  },
} as const;

export type ModuleKind = keyof typeof MODULE_CLASSES;
export const MODULE_KINDS = Object.keys(MODULE_CLASSES) as ModuleKind[];

/** Kinds that are a Generator with a data model of their own (one variable, `<name>/state`). */
export type GeneratorKind = 'Generator' | 'ChainOfThought';
/** A Generator whose output is a label (or labels) of a list (modules/decision.py). */
export type DecisionKind = 'Decision' | 'MultiDecision';
/** The merges of modules/merging.py: several inputs, one output. */
export type MergeKind = 'Concat' | 'And' | 'Or' | 'Xor';
export type MaskKind = 'InMask' | 'OutMask';
/** Modules without text to train: their output follows from their inputs. */
export type PlainKind = MergeKind | MaskKind | 'Not' | 'Identity';

export const MERGE_KINDS: readonly MergeKind[] = ['Concat', 'And', 'Or', 'Xor'];
export const MASK_KINDS: readonly MaskKind[] = ['InMask', 'OutMask'];
export const PLAIN_KINDS: readonly PlainKind[] = [...MERGE_KINDS, ...MASK_KINDS, 'Not', 'Identity'];

export function isPlainKind(kind: ModuleKind): kind is PlainKind {
  return (PLAIN_KINDS as readonly string[]).includes(kind);
}

/** A Decision's config: a Generator's without `data_model` (its output is built from labels). */
export type DecisionConfig = Omit<GeneratorConfig, 'data_model'> & {
  question: string;
  labels: string[];
};

/** modules/branch.py `Branch.get_config`: its decision's settings inline, one module per label. */
export type BranchConfig = Omit<DecisionConfig, 'labels' | 'question'> & {
  labels: string[];
  question: string;
  /** One serialized module per label, or null: that slot carries the input on. */
  branches: (SerializedObject | null)[];
  decision_type: 'Decision' | 'MultiDecision';
  inject_decision: boolean;
  return_decision: boolean;
};

/** modules/self_critique.py `SelfCritique.get_config`. */
export type SelfCritiqueConfig = {
  name: string;
  description: string | null;
  trainable: boolean;
  language_model: SerializedObject;
  instructions: string | null;
  return_reward: boolean;
  return_inputs: boolean | null;
  revise: boolean;
  revision_instructions: string | null;
  [key: string]: Json | undefined;
};

/** Merges, Not and Identity: `Module.get_config`; masks add `mask`. */
export type PlainConfig = {
  name: string;
  description: string | null;
  trainable: boolean;
  mask?: string[];
};

export function kindOfClass(className: string): ModuleKind | undefined {
  return MODULE_KINDS.find((kind) => MODULE_CLASSES[kind].class_name === className);
}

export function serializedModule(kind: ModuleKind, config: JsonObject): SerializedObject {
  const { module, class_name } = MODULE_CLASSES[kind];
  return { module, class_name, registered_name: `${module}.${class_name}`, config };
}

/** The variable a Generator named `name` owns (optimizer_core: `f"{name}/state"`). */
export function variableName(moduleName: string): string {
  return `${moduleName}/state`;
}

/** The keys a Generator asks for: ChainOfThought puts `thinking` first (with_thinking). */
export function outputKeys(kind: ModuleKind, schema: JsonSchema): string[] {
  const keys = schemaKeys(schema);
  return kind === 'ChainOfThought' && !keys.includes('thinking') ? ['thinking', ...keys] : keys;
}

/** The name of the model a module outputs: ChainOfThought's gets `WithThinking`. */
export function outputModelName(kind: ModuleKind, dataModel: SavedDataModel): string {
  if (kind !== 'ChainOfThought' || schemaKeys(dataModel.schema).includes('thinking')) {
    return dataModel.name;
  }
  return `${dataModel.name}WithThinking`;
}

/** `default_instructions(output_model)` from modules/generator.py. */
export function defaultInstructions(kind: ModuleKind, schema: JsonSchema): string {
  const keys = pythonJsonDumps(outputKeys(kind, schema));
  return `Your task is to answer with a JSON containing the following keys: ${keys}.`;
}

export function emptyVariable(instructions: string): VariableJson {
  return {
    instructions,
    examples: [],
    predictions: [],
    candidates: [],
    best_candidates: [],
    nb_visit: 0,
    cumulative_reward: 0,
  };
}

/** The language model a new Generator gets until a provider is chosen (the bundled offline one). */
export const DEFAULT_LANGUAGE_MODEL: SerializedObject = {
  module: 'optimizer_core.language_models.language_model',
  class_name: 'LanguageModel',
  registered_name: 'optimizer_core.language_models.language_model.LanguageModel',
  config: {
    model: 'local/smollm2',
    api_base: null,
    timeout: 120,
    max_retries: 5,
    backoff_base: 0.5,
    backoff_max: 30,
    max_concurrency: 16,
    cache_dir: null,
    temperature: null,
    max_tokens: null,
    structured_output: 'json_schema',
  },
};

/** The class path written for models drawn in the editor; it never imports, so the engine
 * rebuilds the class from the schema (modules/serialization.py). */
export function editorClassPath(name: string): string {
  return `studio_editor.${name}`;
}

export class DocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentError';
  }
}

/** Check the envelope the way `_check_document` does, before reading the rest. */
export function checkDocument(value: unknown): asserts value is ProgramDocument {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DocumentError('a program file must hold a JSON object');
  }
  const doc = value as Record<string, unknown>;
  if (doc.kind !== DOCUMENT_KIND) {
    throw new DocumentError(
      `expected a '${DOCUMENT_KIND}' document, got kind ${JSON.stringify(doc.kind ?? null)}`,
    );
  }
  const version = doc.format_version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version > FORMAT_VERSION) {
    throw new DocumentError(
      `unsupported format_version ${JSON.stringify(version ?? null)} (the editor reads up to ${FORMAT_VERSION})`,
    );
  }
  const program = doc.program as Record<string, unknown> | undefined;
  if (!program || !Array.isArray(program.modules)) {
    throw new DocumentError('the document has no program.modules list');
  }
}

/** `Decision.default_instructions` / `MultiDecision.default_instructions` (modules/decision.py;
 * the labels dumped with `ensure_ascii=False`). */
export function decisionInstructions(kind: DecisionKind, labels: string[]): string {
  const list = `[${labels.map((label) => JSON.stringify(label)).join(', ')}]`;
  return kind === 'Decision'
    ? 'The input ends with a question about the rest of it. Answer it by choosing one ' +
        `of these labels: ${list}. Think it through step by step in \`thinking\`, then give ` +
        'the label in `choice`.'
    : 'The input ends with a question about the rest of it. Answer it by choosing one ' +
        `or more of these labels: ${list}. Think it through step by step in \`thinking\`, ` +
        'then list the labels that apply in `choices`.';
}

/**
 * The names of the variables a serialized module owns, in the engine's order
 * (`Module.variables`: its own, then those of the modules it holds): a Generator's
 * `<name>/state`; a Branch's decision (`<name>_decision`) then each branch's; a
 * SelfCritique's critic (`<name>_critic`) then, when it revises, its reviser.
 */
export function ownedVariableNames(module: SerializedObject): string[] {
  const config = module.config;
  const name = String(config.name);
  switch (kindOfClass(module.class_name)) {
    case 'Generator':
    case 'ChainOfThought':
    case 'Decision':
    case 'MultiDecision':
      return [variableName(name)];
    case 'Branch': {
      const branches = Array.isArray(config.branches) ? config.branches : [];
      return [
        variableName(`${name}_decision`),
        ...branches.flatMap((branch) =>
          isJsonObject(branch) && isJsonObject(branch.config)
            ? ownedVariableNames(branch as unknown as SerializedObject)
            : [],
        ),
      ];
    }
    case 'SelfCritique':
      return [
        variableName(`${name}_critic`),
        ...(config.revise === true ? [variableName(`${name}_reviser`)] : []),
      ];
    default:
      return [];
  }
}

/** `critique_instructions` of modules/self_critique.py. */
export function critiqueInstructions(returnReward: boolean): string {
  const text =
    'Examine the input carefully and write a critique of it in `critique`: what is ' +
    'right, what is wrong or missing, and how it could be better.';
  return returnReward
    ? `${text} Then grade it in \`reward\`, from 0.0 (very bad) to 1.0 (very good).`
    : text;
}

/** `revision_instructions` of modules/self_critique.py. */
export function revisionInstructions(keys: string[]): string {
  return (
    'The input holds an answer, then a critique of it. Write the answer again with ' +
    'what the critique found wrong or missing fixed, keeping what was right. Answer ' +
    `with a JSON containing the following keys: ${pythonJsonDumps(keys)}.`
  );
}

/** "An Input", "A Branch": a kind with its article, to start a sentence. */
export function aKind(kind: ModuleKind): string {
  return /^[AEIOU]/.test(kind) ? `An ${kind}` : `A ${kind}`;
}
