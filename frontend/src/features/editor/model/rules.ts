/**
 * The graph rules optimizer_core enforces when it builds a Program
 * (programs/program.py `_topological_order`, modules/generator.py `compute_output_spec`),
 * checked while editing so the server never sees a program it would refuse.
 */
import { isJsonObject } from '@/lib/json';
import {
  moduleName,
  programEnds,
  type EditorGraph,
  type ProgramEdge,
  type ProgramNode,
} from './graph';
import { SAMPLING_KEYS, SAMPLING_LABELS, samplingProblem } from './sampling';

export type ConnectionCheck = { ok: true } | { ok: false; reason: string };

export type Problem = { nodeId?: string; message: string };

const KIND_LABEL = {
  Input: 'Input',
  Generator: 'Generator',
  ChainOfThought: 'ChainOfThought',
} as const;

function label(node: ProgramNode): string {
  return `${KIND_LABEL[node.data.kind]} '${moduleName(node)}'`;
}

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
  const existing = graph.edges.find((e) => e.target === to.id);
  if (existing) {
    if (existing.source === from.id)
      return { ok: false, reason: `${label(from)} already feeds ${label(to)}.` };
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
  const names = new Map<string, ProgramNode>();
  for (const node of graph.nodes) {
    const name = moduleName(node);
    if (!name.trim())
      problems.push({ nodeId: node.id, message: `A ${node.data.kind} has no name.` });
    else if (names.has(name))
      problems.push({ nodeId: node.id, message: `Two modules are named '${name}'.` });
    names.set(name, node);
    const schema = node.data.config.data_model?.schema;
    if (!isJsonObject(schema) || !isJsonObject(schema.properties)) {
      problems.push({ nodeId: node.id, message: `${label(node)} has no valid data model.` });
    }
    const count = inbound.get(node.id) ?? 0;
    if (node.data.kind === 'Input') {
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
    } else if (count > 1) {
      problems.push({
        nodeId: node.id,
        message: `${label(node)} takes one input, it has ${count}.`,
      });
    }
    for (const key of SAMPLING_KEYS) {
      const problem = samplingProblem(key, node.data.config[key]);
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
  if (problems.length === 0 && programEnds(graph).outputs.length === 0) {
    problems.push({ message: 'The program has no output: add a Generator after an Input.' });
  }
  return problems;
}
