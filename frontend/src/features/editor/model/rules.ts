/**
 * The graph rules optimizer_core enforces when it builds a Program
 * (programs/program.py `_topological_order`, modules/generator.py `compute_output_spec`),
 * checked while editing so the server never sees a program it would refuse.
 */
import { isJsonObject } from '@/lib/json';
import type { ModuleKind } from './document';
import {
  moduleName,
  ownDataModel,
  programEnds,
  slotOfHandle,
  type EditorGraph,
  type ProgramEdge,
  type ProgramNode,
} from './graph';
import { heldModuleNames } from './rename';
import { SAMPLING_KEYS, SAMPLING_LABELS, samplingProblem } from './sampling';
import { mergeConflicts, modelKeys, OutputModels, type OutputModel } from './schemas';

export type ConnectionCheck = { ok: true } | { ok: false; reason: string };

export type Problem = { nodeId?: string; message: string };

function label(node: ProgramNode): string {
  return `${node.data.kind} '${moduleName(node)}'`;
}

/** Modules that read exactly one input (the engine raises otherwise); the others merge theirs. */
const SINGLE_INPUT: ReadonlySet<ModuleKind> = new Set(['Not', 'InMask', 'OutMask']);

/** The path from `from` to `to` following edges, or null when `to` is not reachable. */
function findPath(edges: ProgramEdge[], from: string, to: string): string[] | null {
  const children = new Map<string, string[]>();
  for (const edge of edges)
    children.set(edge.source, [...(children.get(edge.source) ?? []), edge.target]);
  const previous = new Map<string, string>();
  const queue = [from];
  const seen = new Set([from]);
  while (queue.length > 0) {
    const current = queue.shift() as string;
    if (current === to) {
      const path = [to];
      while (path[0] !== from) path.unshift(previous.get(path[0] as string) as string);
      return path;
    }
    for (const child of children.get(current) ?? []) {
      if (!seen.has(child)) {
        seen.add(child);
        previous.set(child, current);
        queue.push(child);
      }
    }
  }
  return null;
}

/** Whether an edge `source -> target` may be added, and if not, why (in words a user reads). */
export function checkConnection(
  graph: Pick<EditorGraph, 'nodes' | 'edges'>,
  source: string | null | undefined,
  target: string | null | undefined,
  sourceHandle?: string | null,
): ConnectionCheck {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const from = source ? byId.get(source) : undefined;
  const to = target ? byId.get(target) : undefined;
  if (!from || !to) return { ok: false, reason: 'Both ends of a connection must be modules.' };
  if (from.id === to.id) return { ok: false, reason: `${label(from)} cannot feed itself.` };
  if (to.data.kind === 'Input') {
    return {
      ok: false,
      reason: `${label(to)} has no inbound edge: an Input is where data enters the program.`,
    };
  }
  const slot = slotOfHandle(sourceHandle);
  const same = graph.edges.find(
    (e) => e.target === to.id && e.source === from.id && slotOfHandle(e.sourceHandle) === slot,
  );
  if (same) return { ok: false, reason: `${label(from)} already feeds ${label(to)}.` };
  const existing = graph.edges.find((e) => e.target === to.id);
  if (existing && SINGLE_INPUT.has(to.data.kind)) {
    const other = byId.get(existing.source);
    return {
      ok: false,
      reason: `${label(to)} takes exactly one input and already reads ${other ? label(other) : 'another module'}; delete that edge first.`,
    };
  }
  const back = findPath(graph.edges, to.id, from.id);
  if (back) {
    const names = [...back, to.id].map((id) => moduleName(byId.get(id) as ProgramNode));
    return { ok: false, reason: `That would make a cycle: ${names.join(' -> ')}.` };
  }
  return { ok: true };
}

/** Everything that stops the graph from being a Program optimizer_core would build. */
export function programProblems(graph: EditorGraph): Problem[] {
  const problems: Problem[] = [];
  if (graph.nodes.length === 0)
    return [{ message: 'The program is empty: add an Input from the palette.' }];
  if (!graph.meta.name.trim()) problems.push({ message: 'The program needs a name.' });
  const inbound = new Map<string, number>();
  const outbound = new Set<string>();
  for (const edge of graph.edges) {
    inbound.set(edge.target, (inbound.get(edge.target) ?? 0) + 1);
    outbound.add(edge.source);
  }
  const models = new OutputModels(graph);
  const names = new Map<string, ProgramNode>();
  for (const node of graph.nodes) {
    const name = moduleName(node);
    if (!name.trim())
      problems.push({ nodeId: node.id, message: `A ${node.data.kind} has no name.` });
    else if (names.has(name))
      problems.push({ nodeId: node.id, message: `Two modules are named '${name}'.` });
    names.set(name, node);
    // The modules a Branch holds are named in the program too (`iter_modules`).
    for (const held of heldModuleNames(node.data)) {
      if (names.has(held))
        problems.push({ nodeId: node.id, message: `Two modules are named '${held}'.` });
      names.set(held, node);
    }
    const kind = node.data.kind;
    if (kind === 'Input' || kind === 'Generator' || kind === 'ChainOfThought') {
      const schema = ownDataModel(node)?.schema;
      if (!isJsonObject(schema) || !isJsonObject(schema.properties)) {
        problems.push({ nodeId: node.id, message: `${label(node)} has no valid data model.` });
      }
    }
    const count = inbound.get(node.id) ?? 0;
    if (kind === 'Input') {
      if (!outbound.has(node.id)) {
        problems.push({
          nodeId: node.id,
          message: `${label(node)} is not connected to any output.`,
        });
      }
      continue;
    }
    if (count === 0) {
      problems.push({
        nodeId: node.id,
        message: `${label(node)} has no input: its output cannot reach back to an Input.`,
      });
    } else if (count > 1 && SINGLE_INPUT.has(kind)) {
      problems.push({
        nodeId: node.id,
        message: `${label(node)} takes one input, it has ${count}.`,
      });
    }
    problems.push(...kindProblems(graph, node, models));
    const config = node.data.config as unknown as Record<string, unknown>;
    for (const key of SAMPLING_KEYS) {
      const problem = samplingProblem(key, config[key] as never);
      if (problem) {
        const setting = SAMPLING_LABELS[key].toLowerCase();
        problems.push({ nodeId: node.id, message: `${label(node)}: ${setting} ${problem}.` });
      }
    }
  }
  if (!graph.nodes.some((n) => n.data.kind === 'Input')) {
    problems.push({ message: 'A program needs at least one Input.' });
  }
  // Kahn's algorithm: whatever is left over sits on a cycle.
  const remaining = new Map(graph.nodes.map((n) => [n.id, inbound.get(n.id) ?? 0]));
  const ready = graph.nodes.filter((n) => (inbound.get(n.id) ?? 0) === 0).map((n) => n.id);
  while (ready.length > 0) {
    const id = ready.pop() as string;
    remaining.delete(id);
    for (const edge of graph.edges) {
      if (edge.source !== id || !remaining.has(edge.target)) continue;
      const left = (remaining.get(edge.target) as number) - 1;
      remaining.set(edge.target, left);
      if (left === 0) ready.push(edge.target);
    }
  }
  if (remaining.size > 0) {
    const cycle = graph.nodes.filter((n) => remaining.has(n.id)).map(moduleName);
    problems.push({ message: `These modules form a cycle: ${cycle.join(', ')}.` });
  }
  problems.push(...unreachableOutputs(graph));
  if (problems.length === 0 && programEnds(graph).outputs.length === 0) {
    problems.push({ message: 'The program has no output: add a Generator after an Input.' });
  }
  return problems;
}

/** What a module of a given kind needs beyond being wired: a merge's inputs must agree on
 * their fields' types, a mask must leave a field, a Branch's every label leads somewhere. */
function kindProblems(graph: EditorGraph, node: ProgramNode, models: OutputModels): Problem[] {
  const { data } = node;
  const arriving = models.inputs(node.id);
  const inputs = arriving.every((m): m is OutputModel => m !== null) ? arriving : [];
  const problems: Problem[] = [];
  if ((data.kind === 'Or' || data.kind === 'Xor') && inputs.length > 1) {
    const conflicts = mergeConflicts(inputs);
    if (conflicts.length > 0) {
      const fields = conflicts.map((f) => `'${f}'`).join(', ');
      problems.push({
        nodeId: node.id,
        message: `${label(node)} cannot merge its inputs: ${fields} ${conflicts.length === 1 ? 'has' : 'have'} different types in them.`,
      });
    }
  }
  if ((data.kind === 'InMask' || data.kind === 'OutMask') && inputs.length === 1) {
    const mask = data.config.mask ?? [];
    if (mask.length === 0) {
      problems.push({ nodeId: node.id, message: `${label(node)} names no field.` });
    } else if (modelKeys(models.outputs(node.id)[0]).length === 0) {
      const what = data.kind === 'InMask' ? 'keeps none' : 'drops every one';
      problems.push({
        nodeId: node.id,
        message: `${label(node)} ${what} of the fields it reads: a data model needs one.`,
      });
    }
  }
  if (data.kind === 'Branch') {
    const read = new Set(
      graph.edges.filter((e) => e.source === node.id).map((e) => slotOfHandle(e.sourceHandle)),
    );
    data.config.labels.forEach((labelName, slot) => {
      if (!read.has(slot)) {
        problems.push({
          nodeId: node.id,
          message: `${label(node)}: label '${labelName}' has no module connected.`,
        });
      }
    });
  }
  return problems;
}

/** Outputs whose inputs never lead back to an Input (a loose chain, or one fed by a cycle). */
function unreachableOutputs(graph: EditorGraph): Problem[] {
  const reached = new Set(graph.nodes.filter((n) => n.data.kind === 'Input').map((n) => n.id));
  let grew = true;
  while (grew) {
    grew = false;
    for (const edge of graph.edges) {
      if (reached.has(edge.source) && !reached.has(edge.target)) {
        reached.add(edge.target);
        grew = true;
      }
    }
  }
  const hasInbound = new Set(graph.edges.map((e) => e.target));
  return programEnds(graph)
    .outputs.filter((n) => hasInbound.has(n.id) && !reached.has(n.id))
    .map((n) => ({
      nodeId: n.id,
      message: `${label(n)} is an output no Input reaches.`,
    }));
}
