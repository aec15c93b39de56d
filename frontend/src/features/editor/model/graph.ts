/**
 * The editor's graph (React Flow nodes and edges) and its conversion to and from the
 * saved program document. A document loaded and saved again is identical apart from
 * the layout, which travels beside it.
 */
import type { Edge, Node, XYPosition } from '@xyflow/react';
import { cloneJson, isJsonObject, type JsonObject } from '@/lib/json';
import {
  checkDocument,
  defaultInstructions,
  DocumentError,
  DOCUMENT_KIND,
  emptyVariable,
  FORMAT_VERSION,
  kindOfClass,
  variableName,
  type EditorLayout,
  type GeneratorConfig,
  type InputConfig,
  type ModuleEntry,
  type ModuleKind,
  type ProgramDocument,
  type SerializedObject,
  type VariableJson,
} from './document';

type Envelope = Omit<SerializedObject, 'config'>;

export type InputNodeData = {
  kind: 'Input';
  envelope: Envelope;
  config: InputConfig;
};

export type GeneratorNodeData = {
  kind: 'Generator' | 'ChainOfThought';
  envelope: Envelope;
  config: GeneratorConfig;
  variable: VariableJson;
};

export type ProgramNodeData = InputNodeData | GeneratorNodeData;

export type InputNode = Node<InputNodeData, 'Input'>;
export type GeneratorNode = Node<GeneratorNodeData & { kind: 'Generator' }, 'Generator'>;
export type ChainOfThoughtNode = Node<
  GeneratorNodeData & { kind: 'ChainOfThought' },
  'ChainOfThought'
>;
/** One node per module; `type` and `data.kind` always agree. */
export type ProgramNode = InputNode | GeneratorNode | ChainOfThoughtNode;
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
};

export type EditorGraph = {
  nodes: ProgramNode[];
  edges: ProgramEdge[];
  meta: ProgramMeta;
};

export const INPUT_HANDLE = 'in';
export const OUTPUT_HANDLE = 'out';

let idCounter = 0;
/** A node or edge id, unique within this page (module names can change, ids do not). */
export function newId(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${Date.now().toString(36)}-${idCounter}`;
}

export function edgeId(source: string, target: string): string {
  return `e:${source}->${target}`;
}

export function makeEdge(source: string, target: string): ProgramEdge {
  return {
    id: edgeId(source, target),
    source,
    target,
    sourceHandle: OUTPUT_HANDLE,
    targetHandle: INPUT_HANDLE,
  };
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
      entry.inbound.length === 0 ? 0 : 1 + Math.max(...entry.inbound.map((n) => depth.get(n) ?? 0));
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
    const envelope = envelopeOf(entry.module);
    if (kind === 'Input') {
      nodes.push({
        id,
        type: 'Input',
        position: { ...position },
        data: { kind, envelope, config: entry.module.config as unknown as InputConfig },
      });
    } else {
      const config = entry.module.config as unknown as GeneratorConfig;
      const variable =
        document.variables?.[variableName(entry.name)] ??
        emptyVariable(config.instructions ?? defaultInstructions(kind, config.data_model.schema));
      nodes.push({
        id,
        type: kind,
        position: { ...position },
        data: { kind, envelope, config, variable },
      } as ProgramNode);
    }
    for (const parent of entry.inbound) {
      const source = idsByName.get(parent);
      if (!source)
        throw new DocumentError(`module '${entry.name}' is wired to unknown module '${parent}'`);
      edges.push(makeEdge(source, id));
    }
  });

  const meta: ProgramMeta = {
    name: program.name,
    description: program.description ?? null,
    inputOrder: [...program.inputs],
    outputOrder: [...program.outputs],
    singleInput: program.single_input ?? true,
    singleOutput: program.single_output ?? true,
    formatVersion: document.format_version,
    compileConfig: document.compile_config ?? null,
    optimizerState: document.optimizer_state ?? null,
    extraDocument: pick(document as unknown as Record<string, unknown>, KNOWN_DOCUMENT_KEYS),
    extraProgram: pick(program as unknown as Record<string, unknown>, KNOWN_PROGRAM_KEYS),
  };
  return { nodes, edges, meta };
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
  const inbound = new Map<string, string[]>();
  for (const edge of graph.edges) {
    inbound.set(edge.target, [...(inbound.get(edge.target) ?? []), edge.source]);
  }
  const { inputs, outputs } = programEnds(graph);
  const order: ProgramNode[] = [];
  const seen = new Set<string>();
  const visiting = new Set<string>();
  const visit = (node: ProgramNode) => {
    if (seen.has(node.id)) return;
    if (visiting.has(node.id))
      throw new DocumentError(`the graph has a cycle through '${moduleName(node)}'`);
    visiting.add(node.id);
    for (const parentId of inbound.get(node.id) ?? []) visit(byId.get(parentId) as ProgramNode);
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
    inbound: (inbound.get(node.id) ?? []).map((id) => moduleName(byId.get(id) as ProgramNode)),
  }));
  const variables: Record<string, VariableJson> = {};
  for (const node of order) {
    if (node.data.kind !== 'Input')
      variables[variableName(moduleName(node))] = cloneJson(node.data.variable);
  }
  const inputNames = inputs.map(moduleName);
  const outputNames = outputs.map(moduleName);
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
