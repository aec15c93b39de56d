/**
 * The editor's graph (React Flow nodes and edges) and its conversion to and from the
 * saved program document. A document loaded and saved again is identical apart from
 * the layout, which travels beside it.
 */
import type { Edge, Node, XYPosition } from '@xyflow/react';
import { cloneJson, isJsonObject, type JsonObject } from '@/lib/json';
import {
  checkDocument,
  decisionInstructions,
  defaultInstructions,
  DocumentError,
  DOCUMENT_KIND,
  emptyVariable,
  FORMAT_VERSION,
  isPlainKind,
  kindOfClass,
  ownedVariableNames,
  variableName,
  type BranchConfig,
  type DecisionConfig,
  type DecisionKind,
  type EditorLayout,
  type GeneratorConfig,
  type GeneratorKind,
  type InputConfig,
  type ModuleEntry,
  type ModuleKind,
  type PlainConfig,
  type PlainKind,
  type ProgramDocument,
  type SavedDataModel,
  type SelfCritiqueConfig,
  type SerializedObject,
  type VariableJson,
  type Wire,
} from './document';

type Envelope = Omit<SerializedObject, 'config'>;

export type InputNodeData = {
  kind: 'Input';
  envelope: Envelope;
  config: InputConfig;
};

export type GeneratorNodeData = {
  kind: GeneratorKind;
  envelope: Envelope;
  config: GeneratorConfig;
  variable: VariableJson;
};

/** A Decision is a Generator: one variable, `<name>/state`; its output model is its labels'. */
export type DecisionNodeData = {
  kind: DecisionKind;
  envelope: Envelope;
  config: DecisionConfig;
  variable: VariableJson;
};

/** Modules that hold Generators (a Branch's decision and branches, a SelfCritique's critic and
 * reviser): their variables, by name, in the order the engine lists them. */
export type BranchNodeData = {
  kind: 'Branch';
  envelope: Envelope;
  config: BranchConfig;
  variables: Record<string, VariableJson>;
};

export type SelfCritiqueNodeData = {
  kind: 'SelfCritique';
  envelope: Envelope;
  config: SelfCritiqueConfig;
  variables: Record<string, VariableJson>;
};

/** Merges, masks, Not and Identity: nothing to train, the output follows from the inputs. */
export type PlainNodeData = {
  kind: PlainKind;
  envelope: Envelope;
  config: PlainConfig;
};

export type ProgramNodeData =
  | InputNodeData
  | GeneratorNodeData
  | DecisionNodeData
  | BranchNodeData
  | SelfCritiqueNodeData
  | PlainNodeData;

export type InputNode = Node<InputNodeData, 'Input'>;
export type GeneratorNode = Node<GeneratorNodeData & { kind: 'Generator' }, 'Generator'>;
export type ChainOfThoughtNode = Node<
  GeneratorNodeData & { kind: 'ChainOfThought' },
  'ChainOfThought'
>;
export type DecisionNode = Node<DecisionNodeData, DecisionKind>;
export type BranchNode = Node<BranchNodeData, 'Branch'>;
export type SelfCritiqueNode = Node<SelfCritiqueNodeData, 'SelfCritique'>;
export type PlainNode = Node<PlainNodeData, PlainKind>;
/** One node per module; `type` and `data.kind` always agree. */
export type ProgramNode =
  | InputNode
  | GeneratorNode
  | ChainOfThoughtNode
  | DecisionNode
  | BranchNode
  | SelfCritiqueNode
  | PlainNode;
export type ProgramEdge = Edge;

/** Everything of the document that is not a module or a wire. */
export type ProgramMeta = {
  name: string;
  description: string | null;
  /** Module names in the order the document listed them; new ones follow in node order. */
  inputOrder: string[];
  outputOrder: string[];
  singleInput: boolean;
  singleOutput: boolean;
  formatVersion: number;
  compileConfig: JsonObject | null;
  optimizerState: JsonObject | null;
  /** Top-level and `program` keys this editor does not know, kept as they were. */
  extraDocument: JsonObject;
  extraProgram: JsonObject;
  /** Variables no module claims, written back after the others (absent: none). */
  extraVariables?: Record<string, VariableJson>;
};

export type EditorGraph = {
  nodes: ProgramNode[];
  edges: ProgramEdge[];
  meta: ProgramMeta;
};

export const INPUT_HANDLE = 'in';
export const OUTPUT_HANDLE = 'out';

/** The handle of output `slot` of a module with several (a Branch's label `slot`). */
export function slotHandle(slot: number): string {
  return `out:${slot}`;
}

/** The output slot an edge leaves from: null for a module's one output. */
export function slotOfHandle(handle: string | null | undefined): number | null {
  const match = /^out:(\d+)$/.exec(handle ?? '');
  return match ? Number(match[1]) : null;
}

let idCounter = 0;
/** A node or edge id, unique within this page (module names can change, ids do not). */
export function newId(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${Date.now().toString(36)}-${idCounter}`;
}

export function edgeId(source: string, target: string, sourceHandle?: string | null): string {
  const slot = slotOfHandle(sourceHandle);
  return slot === null ? `e:${source}->${target}` : `e:${source}.${slot}->${target}`;
}

export function makeEdge(
  source: string,
  target: string,
  sourceHandle: string = OUTPUT_HANDLE,
): ProgramEdge {
  return {
    id: edgeId(source, target, sourceHandle),
    source,
    target,
    sourceHandle,
    targetHandle: INPUT_HANDLE,
  };
}

/** The module name a wire reads from. */
export function wireModule(wire: Wire): string {
  return typeof wire === 'string' ? wire : wire.module;
}

/** How many outputs a module has: one per label for a Branch, one per input for an
 * Identity given several (modules/identity.py), else one. */
export function outputCount(node: ProgramNode, inboundCount: number): number {
  if (node.data.kind === 'Branch') return node.data.config.labels.length;
  if (node.data.kind === 'Identity') return Math.max(1, inboundCount);
  return 1;
}

/** The data model a module declares itself (Inputs and Generators); others derive theirs. */
export function ownDataModel(node: ProgramNode): SavedDataModel | undefined {
  const { data } = node;
  return data.kind === 'Input' || data.kind === 'Generator' || data.kind === 'ChainOfThought'
    ? data.config.data_model
    : undefined;
}

/** The variables a module owns, by name, in the engine's order (`Module.variables`). */
export function nodeVariables(node: ProgramNode): Record<string, VariableJson> {
  const { data } = node;
  if ('variable' in data) return { [variableName(data.config.name)]: data.variable };
  if ('variables' in data) return data.variables;
  return {};
}

export function emptyMeta(name = 'program'): ProgramMeta {
  return {
    name,
    description: null,
    inputOrder: [],
    outputOrder: [],
    singleInput: true,
    singleOutput: true,
    formatVersion: FORMAT_VERSION,
    compileConfig: null,
    optimizerState: null,
    extraDocument: {},
    extraProgram: {},
  };
}

export function emptyGraph(): EditorGraph {
  return { nodes: [], edges: [], meta: emptyMeta() };
}

export function moduleName(node: ProgramNode): string {
  return node.data.config.name;
}

function envelopeOf(module: SerializedObject): Envelope {
  return {
    module: module.module,
    class_name: module.class_name,
    registered_name: module.registered_name,
  };
}

const KNOWN_DOCUMENT_KEYS = new Set([
  'format_version',
  'kind',
  'program',
  'compile_config',
  'variables',
  'optimizer_state',
  'layout',
]);
const KNOWN_PROGRAM_KEYS = new Set([
  'name',
  'description',
  'modules',
  'inputs',
  'outputs',
  'single_input',
  'single_output',
]);

function pick(source: Record<string, unknown>, known: Set<string>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (!known.has(key)) out[key] = cloneJson(value) as JsonObject[string];
  }
  return out;
}

/** A position for documents saved without a layout: columns by depth, rows by order. */
function fallbackPositions(entries: ModuleEntry[]): Map<string, XYPosition> {
  const depth = new Map<string, number>();
  const rows = new Map<number, number>();
  const positions = new Map<string, XYPosition>();
  for (const entry of entries) {
    const d =
      entry.inbound.length === 0
        ? 0
        : 1 + Math.max(...entry.inbound.map((w) => depth.get(wireModule(w)) ?? 0));
    depth.set(entry.name, d);
    const row = rows.get(d) ?? 0;
    rows.set(d, row + 1);
    positions.set(entry.name, { x: d * 320, y: row * 200 });
  }
  return positions;
}

/**
 * Read a saved program document into the editor's graph.
 *
 * @param layout node positions by module name; when absent, a simple grid is used
 *   (callers run the auto-layout afterwards).
 * @throws DocumentError when the document is not a program the editor can show.
 */
export function documentToGraph(value: unknown, layout?: EditorLayout | null): EditorGraph {
  checkDocument(value);
  const document = cloneJson(value);
  const program = document.program;
  const fallback = fallbackPositions(program.modules);
  const idsByName = new Map<string, string>();
  const nodes: ProgramNode[] = [];
  const edges: ProgramEdge[] = [];
  const documentVariables = document.variables ?? {};
  const claimed = new Set<string>();
  const claim = (name: string): VariableJson | undefined => {
    claimed.add(name);
    return documentVariables[name];
  };

  program.modules.forEach((entry, index) => {
    if (!isJsonObject(entry.module) || !isJsonObject(entry.module.config)) {
      throw new DocumentError(`module #${index + 1} is not a serialized module`);
    }
    const kind = kindOfClass(entry.module.class_name);
    if (!kind) {
      throw new DocumentError(
        `module '${entry.name}' is a ${entry.module.class_name}, which the editor cannot show yet`,
      );
    }
    if (idsByName.has(entry.name)) throw new DocumentError(`two modules are named '${entry.name}'`);
    const id = newId(kind.toLowerCase());
    idsByName.set(entry.name, id);
    const position = layout?.nodes[entry.name] ?? fallback.get(entry.name) ?? { x: 0, y: 0 };
    const data = nodeData(kind, entry.module, claim);
    nodes.push({ id, type: kind, position: { ...position }, data } as ProgramNode);
    for (const wire of entry.inbound) {
      const parent = wireModule(wire);
      const source = idsByName.get(parent);
      if (!source)
        throw new DocumentError(`module '${entry.name}' is wired to unknown module '${parent}'`);
      const handle = typeof wire === 'string' ? OUTPUT_HANDLE : slotHandle(wire.output);
      edges.push(makeEdge(source, id, handle));
    }
  });
  const extraVariables: Record<string, VariableJson> = {};
  for (const [name, variable] of Object.entries(documentVariables)) {
    if (!claimed.has(name)) extraVariables[name] = variable;
  }

  const meta: ProgramMeta = {
    name: program.name,
    description: program.description ?? null,
    inputOrder: [...program.inputs],
    outputOrder: [...new Set(program.outputs.map(wireModule))],
    singleInput: program.single_input ?? true,
    singleOutput: program.single_output ?? true,
    formatVersion: document.format_version,
    compileConfig: document.compile_config ?? null,
    optimizerState: document.optimizer_state ?? null,
    extraDocument: pick(document as unknown as Record<string, unknown>, KNOWN_DOCUMENT_KEYS),
    extraProgram: pick(program as unknown as Record<string, unknown>, KNOWN_PROGRAM_KEYS),
  };
  if (Object.keys(extraVariables).length > 0) meta.extraVariables = extraVariables;
  return { nodes, edges, meta };
}

/** A module's node data; `claim(name)` hands over the document's variable of that name. */
function nodeData(
  kind: ModuleKind,
  module: SerializedObject,
  claim: (name: string) => VariableJson | undefined,
): ProgramNodeData {
  const envelope = envelopeOf(module);
  const name = String(module.config.name);
  if (kind === 'Input') {
    return { kind, envelope, config: module.config as unknown as InputConfig };
  }
  if (kind === 'Generator' || kind === 'ChainOfThought') {
    const config = module.config as unknown as GeneratorConfig;
    const variable =
      claim(variableName(name)) ??
      emptyVariable(config.instructions ?? defaultInstructions(kind, config.data_model.schema));
    return { kind, envelope, config, variable };
  }
  if (kind === 'Decision' || kind === 'MultiDecision') {
    const config = module.config as unknown as DecisionConfig;
    const variable =
      claim(variableName(name)) ??
      emptyVariable(config.instructions ?? decisionInstructions(kind, config.labels));
    return { kind, envelope, config, variable };
  }
  if (kind === 'Branch' || kind === 'SelfCritique') {
    const variables: Record<string, VariableJson> = {};
    for (const owned of ownedVariableNames(module)) {
      const variable = claim(owned);
      if (variable) variables[owned] = variable;
    }
    return kind === 'Branch'
      ? { kind, envelope, config: module.config as unknown as BranchConfig, variables }
      : { kind, envelope, config: module.config as unknown as SelfCritiqueConfig, variables };
  }
  if (isPlainKind(kind)) {
    return { kind, envelope, config: module.config as unknown as PlainConfig };
  }
  throw new DocumentError(
    `module '${name}' is a ${module.class_name}, which the editor cannot show`,
  );
}

/** Order `names` by a remembered order first, then as they come. */
function ordered(names: string[], hint: string[]): string[] {
  const rank = (name: string) => {
    const i = hint.indexOf(name);
    return i === -1 ? hint.length : i;
  };
  return names
    .map((name, index) => ({ name, index }))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.index - b.index)
    .map((item) => item.name);
}

export type ProgramEnds = { inputs: ProgramNode[]; outputs: ProgramNode[] };

/**
 * Inputs are the Input nodes. Outputs are the modules nothing reads from, plus modules
 * declared as outputs (`meta.outputOrder`) that also feed others, as `Program(outputs=[a, b])`
 * allows when b reads a.
 */
export function programEnds(graph: Pick<EditorGraph, 'nodes' | 'edges' | 'meta'>): ProgramEnds {
  const hasOutgoing = new Set(graph.edges.map((e) => e.source));
  const declared = new Set(graph.meta.outputOrder);
  const byName = new Map(graph.nodes.map((n) => [moduleName(n), n]));
  const inputNames = graph.nodes.filter((n) => n.data.kind === 'Input').map(moduleName);
  const outputNames = graph.nodes
    .filter(
      (n) => n.data.kind !== 'Input' && (!hasOutgoing.has(n.id) || declared.has(moduleName(n))),
    )
    .map(moduleName);
  return {
    inputs: ordered(inputNames, graph.meta.inputOrder).map((n) => byName.get(n) as ProgramNode),
    outputs: ordered(outputNames, graph.meta.outputOrder).map((n) => byName.get(n) as ProgramNode),
  };
}

/**
 * Write the graph as a program document plus its layout.
 *
 * Modules come in the order `Program._topological_order` gives (depth first from each
 * output, parents before children), so the engine re-saves the document unchanged.
 * The graph must be valid (see `programProblems`); inbound wires follow the edges.
 */
export function graphToDocument(graph: EditorGraph): {
  document: ProgramDocument;
  layout: EditorLayout;
} {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const inbound = new Map<string, ProgramEdge[]>();
  for (const edge of graph.edges) {
    inbound.set(edge.target, [...(inbound.get(edge.target) ?? []), edge]);
  }
  const counts = (node: ProgramNode) => outputCount(node, inbound.get(node.id)?.length ?? 0);
  const wireOf = (node: ProgramNode, handle: string | null | undefined): Wire => {
    if (counts(node) === 1) return moduleName(node);
    return { module: moduleName(node), output: slotOfHandle(handle) ?? 0 };
  };
  const { inputs, outputs } = programEnds(graph);
  const order: ProgramNode[] = [];
  const seen = new Set<string>();
  const visiting = new Set<string>();
  const visit = (node: ProgramNode) => {
    if (seen.has(node.id)) return;
    if (visiting.has(node.id))
      throw new DocumentError(`the graph has a cycle through '${moduleName(node)}'`);
    visiting.add(node.id);
    for (const edge of inbound.get(node.id) ?? []) visit(byId.get(edge.source) as ProgramNode);
    visiting.delete(node.id);
    seen.add(node.id);
    order.push(node);
  };
  outputs.forEach(visit);

  const modules: ModuleEntry[] = order.map((node) => ({
    name: moduleName(node),
    module: {
      ...node.data.envelope,
      config: cloneJson(node.data.config) as unknown as JsonObject,
    },
    inbound: (inbound.get(node.id) ?? []).map((edge) =>
      wireOf(byId.get(edge.source) as ProgramNode, edge.sourceHandle),
    ),
  }));
  const variables: Record<string, VariableJson> = {};
  for (const node of order) Object.assign(variables, cloneJson(nodeVariables(node)));
  Object.assign(variables, cloneJson(graph.meta.extraVariables ?? {}));
  const inputNames = inputs.map(moduleName);
  // A module with several outputs gives the program those nothing reads (all, if none is read).
  const outputNames: Wire[] = outputs.flatMap((node): Wire[] => {
    const count = counts(node);
    if (count === 1) return [moduleName(node)];
    const read = new Set(
      graph.edges.filter((e) => e.source === node.id).map((e) => slotOfHandle(e.sourceHandle)),
    );
    const slots = [...Array(count).keys()];
    const free = slots.filter((slot) => !read.has(slot));
    return (free.length > 0 ? free : slots).map((slot) => ({
      module: moduleName(node),
      output: slot,
    }));
  });
  const document = {
    format_version: graph.meta.formatVersion,
    kind: DOCUMENT_KIND,
    program: {
      name: graph.meta.name,
      description: graph.meta.description,
      modules,
      inputs: inputNames,
      outputs: outputNames,
      single_input: inputNames.length === 1 && graph.meta.singleInput,
      single_output: outputNames.length === 1 && graph.meta.singleOutput,
      ...cloneJson(graph.meta.extraProgram),
    },
    compile_config: cloneJson(graph.meta.compileConfig),
    variables,
    optimizer_state: cloneJson(graph.meta.optimizerState),
    ...cloneJson(graph.meta.extraDocument),
  } as ProgramDocument;
  const layout: EditorLayout = { version: 1, nodes: {} };
  for (const node of graph.nodes) {
    layout.nodes[moduleName(node)] = {
      x: Math.round(node.position.x),
      y: Math.round(node.position.y),
    };
  }
  return { document, layout };
}

export function nodeKind(node: ProgramNode): ModuleKind {
  return node.data.kind;
}
