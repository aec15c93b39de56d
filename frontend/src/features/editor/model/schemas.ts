/**
 * The data model each module outputs, worked out from the graph the way optimizer_core's
 * `compute_output_spec` does: Inputs and Generators declare theirs; a Decision's is its
 * labels'; merges, masks, Not and Identity follow from what they read (model_algebra.py:
 * `concat_models` renames a taken name `_1`, `union_models` makes fields only some inputs
 * have optional and refuses one name with two types, `mask_model` matches base keys).
 */
import type { JsonSchema } from '@/lib/datamodel/schema';
import { isJsonObject, jsonEqual, type Json, type JsonObject } from '@/lib/json';
import { isPlainKind, type SavedDataModel } from './document';
import {
  ownDataModel,
  slotOfHandle,
  type EditorGraph,
  type ProgramEdge,
  type ProgramNode,
} from './graph';

/** A data model as the editor draws it: a name and a JSON schema (properties, required, $defs). */
export type OutputModel = { name: string; schema: JsonSchema };

type Graph = Pick<EditorGraph, 'nodes' | 'edges'>;

function properties(model: OutputModel): JsonObject {
  return isJsonObject(model.schema.properties) ? model.schema.properties : {};
}

function required(model: OutputModel): string[] {
  return Array.isArray(model.schema.required)
    ? model.schema.required.filter((k): k is string => typeof k === 'string')
    : [];
}

function defsOf(models: OutputModel[]): JsonObject | undefined {
  const defs: JsonObject = {};
  for (const model of models) {
    if (isJsonObject(model.schema.$defs)) Object.assign(defs, model.schema.$defs);
  }
  return Object.keys(defs).length > 0 ? defs : undefined;
}

function build(name: string, props: JsonObject, req: string[], defs?: JsonObject): OutputModel {
  const schema: JsonObject = {
    additionalProperties: false,
    properties: props,
    required: req,
    title: name,
    type: 'object',
  };
  if (defs) schema.$defs = defs;
  return { name, schema: schema as JsonSchema };
}

function fromSaved(model: SavedDataModel): OutputModel {
  return { name: model.name, schema: model.schema };
}

/** `base_key` of optimizer_core/utils/json_utils.py: no trailing `_<digits>`, then no one `s`. */
export function baseKey(key: string): string {
  const stripped = key.replace(/_\d+$/, '');
  return stripped.length > 1 && stripped.endsWith('s') ? stripped.slice(0, -1) : stripped;
}

/** `concat_models`: every field of every model, a name already taken renamed `_1`, `_2`... */
export function concatModels(models: OutputModel[]): OutputModel {
  const props: JsonObject = {};
  const req: string[] = [];
  for (const model of models) {
    const needed = new Set(required(model));
    for (const [key, prop] of Object.entries(properties(model))) {
      let name = key;
      for (let i = 1; name in props; i += 1) name = `${key}_${i}`;
      props[name] = prop;
      if (needed.has(key)) req.push(name);
    }
  }
  return build(models.map((m) => m.name).join(''), props, req, defsOf(models));
}

/** A field's type, without what does not change it (title, description, default). */
function typeOf(prop: Json): Json {
  if (!isJsonObject(prop)) return prop;
  const ignored = new Set(['title', 'description', 'default']);
  return Object.fromEntries(Object.entries(prop).filter(([key]) => !ignored.has(key)));
}

/** The fields two or more models give different types (what `union_models` refuses). */
export function mergeConflicts(models: OutputModel[]): string[] {
  const seen = new Map<string, Json>();
  const conflicts: string[] = [];
  for (const model of models) {
    for (const [key, prop] of Object.entries(properties(model))) {
      const type = typeOf(prop);
      if (!seen.has(key)) seen.set(key, type);
      else if (!jsonEqual(seen.get(key), type) && !conflicts.includes(key)) conflicts.push(key);
    }
  }
  return conflicts;
}

/** `union_models`: the fields of all, required only where every model requires them. */
export function unionModels(models: OutputModel[]): OutputModel {
  const props: JsonObject = {};
  for (const model of models) {
    for (const [key, prop] of Object.entries(properties(model)))
      if (!(key in props)) props[key] = prop;
  }
  const req = Object.keys(props).filter((key) => models.every((m) => required(m).includes(key)));
  const names = [...new Set(models.map((m) => m.name))];
  return build(names.join('Or'), props, req, defsOf(models));
}

/** `mask_model`: keep (InMask) or drop (OutMask) the fields the mask names by base key. */
export function maskModel(model: OutputModel, mask: string[], keep: boolean): OutputModel {
  const bases = new Set(mask.map(baseKey));
  const props: JsonObject = {};
  for (const [key, prop] of Object.entries(properties(model))) {
    if (bases.has(baseKey(key)) === keep) props[key] = prop;
  }
  const req = required(model).filter((key) => key in props);
  return build(model.name, props, req, defsOf([model]));
}

const THINKING: JsonObject = {
  description: 'Your step by step thinking',
  title: 'Thinking',
  type: 'string',
};

/** `decision_answer` / `multi_decision_answer` of modules/decision.py. */
export function decisionModel(labels: string[], multi: boolean): OutputModel {
  const choice: JsonObject = { enum: labels, type: 'string' };
  return multi
    ? build(
        'MultiDecisionAnswer',
        { thinking: THINKING, choices: { items: choice, minItems: 1, type: 'array' } },
        ['thinking', 'choices'],
      )
    : build('DecisionAnswer', { thinking: THINKING, choice }, ['thinking', 'choice']);
}

/** `Critique` / `CritiqueWithReward` of modules/self_critique.py. */
function critiqueModel(withReward: boolean): OutputModel {
  const props: JsonObject = { critique: { title: 'Critique', type: 'string' } };
  if (withReward)
    props.reward = {
      enum: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
      title: 'Reward',
      type: 'number',
    };
  return build(withReward ? 'CritiqueWithReward' : 'Critique', props, Object.keys(props));
}

/** A Generator's output: ChainOfThought puts `thinking` first; `return_inputs` adds the input. */
function generatorOutput(
  kind: string,
  model: OutputModel,
  returnInputs: boolean,
  inputs: OutputModel[],
): OutputModel {
  let out = model;
  if (kind === 'ChainOfThought' && !('thinking' in properties(out))) {
    out = concatModels([build('Thinking', { thinking: THINKING }, ['thinking']), out]);
    out = { ...out, name: `${model.name}WithThinking` };
  }
  return returnInputs && inputs.length > 0 ? concatModels([...inputs, out]) : out;
}

/** What a module held inside another (a Branch's branch) outputs, fed `input`. */
function heldOutput(module: JsonObject, input: OutputModel): OutputModel {
  const config = isJsonObject(module.config) ? module.config : {};
  const className = String(module.class_name);
  const dataModel = config.data_model;
  if (isJsonObject(dataModel) && isJsonObject(dataModel.schema)) {
    const own = { name: String(dataModel.name), schema: dataModel.schema as JsonSchema };
    return generatorOutput(className, own, config.return_inputs === true, [input]);
  }
  if (Array.isArray(config.labels)) {
    const labels = config.labels.filter((l): l is string => typeof l === 'string');
    return decisionModel(labels, className === 'MultiDecision');
  }
  return input;
}

/**
 * What each module outputs, slot by slot (one slot but for a Branch or an Identity given
 * several inputs); a slot is null when it cannot be worked out (nothing connected, a cycle).
 */
export class OutputModels {
  private readonly byId: Map<string, ProgramNode>;
  private readonly inbound = new Map<string, ProgramEdge[]>();
  private readonly cache = new Map<string, (OutputModel | null)[]>();
  private readonly visiting = new Set<string>();

  constructor(graph: Graph) {
    this.byId = new Map(graph.nodes.map((n) => [n.id, n]));
    for (const edge of graph.edges) {
      this.inbound.set(edge.target, [...(this.inbound.get(edge.target) ?? []), edge]);
    }
  }

  /** The models arriving at a module, one per incoming edge, in the order they are read. */
  inputs(nodeId: string): (OutputModel | null)[] {
    return (this.inbound.get(nodeId) ?? []).map((edge) => {
      const slots = this.outputs(edge.source);
      return slots[slotOfHandle(edge.sourceHandle) ?? 0] ?? null;
    });
  }

  /** The module's output slots. */
  outputs(nodeId: string): (OutputModel | null)[] {
    const cached = this.cache.get(nodeId);
    if (cached) return cached;
    const node = this.byId.get(nodeId);
    if (!node || this.visiting.has(nodeId)) return [null];
    this.visiting.add(nodeId);
    const result = this.compute(node);
    this.visiting.delete(nodeId);
    this.cache.set(nodeId, result);
    return result;
  }

  private compute(node: ProgramNode): (OutputModel | null)[] {
    const { data } = node;
    const own = ownDataModel(node);
    const arriving = this.inputs(node.id);
    const known = arriving.every((m): m is OutputModel => m !== null);
    const inputs = known ? arriving : [];
    if (data.kind === 'Input') return [own ? fromSaved(own) : null];
    if (data.kind === 'Generator' || data.kind === 'ChainOfThought') {
      if (!own) return [null];
      return [
        generatorOutput(data.kind, fromSaved(own), data.config.return_inputs === true, inputs),
      ];
    }
    if (data.kind === 'Decision' || data.kind === 'MultiDecision') {
      return [decisionModel(data.config.labels, data.kind === 'MultiDecision')];
    }
    if (!known || inputs.length === 0) {
      return data.kind === 'Branch' ? data.config.labels.map(() => null) : [null];
    }
    if (data.kind === 'Branch') {
      const { config } = data;
      const merged = concatModels(inputs);
      const decided = decisionModel(config.labels, config.decision_type === 'MultiDecision');
      const routed = config.inject_decision ? concatModels([merged, decided]) : merged;
      return config.labels.map((_, slot) => {
        const module = config.branches[slot] ?? null;
        let model = module ? heldOutput(module as unknown as JsonObject, routed) : routed;
        if (config.return_decision && (module !== null || !config.inject_decision)) {
          model = concatModels([decided, model]);
        }
        return model;
      });
    }
    if (data.kind === 'SelfCritique') {
      const { config } = data;
      const critique = critiqueModel(config.return_reward);
      if (config.revise) return [concatModels([inputs.at(-1) as OutputModel, critique])];
      const returnInputs = config.return_inputs ?? true;
      return [returnInputs ? concatModels([concatModels(inputs), critique]) : critique];
    }
    if (isPlainKind(data.kind)) {
      switch (data.kind) {
        case 'Concat':
        case 'And':
          return [concatModels(inputs)];
        case 'Or':
        case 'Xor':
          return [mergeConflicts(inputs).length > 0 ? null : unionModels(inputs)];
        case 'InMask':
        case 'OutMask':
          return [
            maskModel(inputs[0] as OutputModel, data.config.mask ?? [], data.kind === 'InMask'),
          ];
        case 'Not':
          return [inputs[0] as OutputModel];
        case 'Identity':
          return inputs;
      }
    }
    return [null];
  }
}

/** The field names of a model (its top-level properties), in order. */
export function modelKeys(model: OutputModel | null | undefined): string[] {
  return model ? Object.keys(properties(model)) : [];
}
