import { cloneJson } from '@/lib/json';
import { aKind, decisionInstructions, ownedVariableNames, variableName } from '../model/document';
import {
  makeEdge,
  slotHandle,
  slotOfHandle,
  type BranchNodeData,
  type DecisionNodeData,
  type ProgramEdge,
  type ProgramNode,
} from '../model/graph';
import { change, defineAction, refuse } from './types';

export type LabelEdit =
  | { op: 'add'; label: string }
  | { op: 'rename'; index: number; label: string }
  | { op: 'remove'; index: number };

export type EditLabelsArgs = { nodeId: string; edit: LabelEdit };

/** What `check_labels` (modules/decision.py) refuses, in words; null when the labels are fine. */
export function labelsProblem(labels: string[]): string | null {
  if (labels.some((label) => !label.trim())) return 'A label cannot be empty.';
  if (labels.length < 2) return 'A decision needs at least two labels to choose from.';
  const repeated = labels.find((label, i) => labels.indexOf(label) !== i);
  if (repeated !== undefined) return `The label '${repeated}' is there twice; labels must differ.`;
  return null;
}

/**
 * Add, rename or remove a label of a Decision or a Branch. A Branch's output handles follow:
 * a new label gets a slot that passes the input on, a removed label takes its branch module
 * (and that module's variables) and its connections with it, and the later slots' connections
 * move up one. Instructions still equal to the old default name the new labels.
 */
export const editLabels = defineAction<EditLabelsArgs>({
  name: 'editLabels',
  label: 'Edit labels',
  perform: (state, { nodeId, edit }) => {
    const node = state.nodes.find((n) => n.id === nodeId);
    if (!node) return refuse('That module no longer exists.');
    const { data } = node;
    if (data.kind !== 'Decision' && data.kind !== 'MultiDecision' && data.kind !== 'Branch')
      return refuse(`${aKind(data.kind)} has no labels.`);
    const old = data.config.labels;
    const labels = [...old];
    if (edit.op === 'add') labels.push(edit.label);
    else if (edit.index < 0 || edit.index >= labels.length)
      return refuse('There is no such label.');
    else if (edit.op === 'rename') labels[edit.index] = edit.label;
    else labels.splice(edit.index, 1);
    const problem = labelsProblem(labels);
    if (problem) return refuse(problem);

    const next = cloneJson(data) as DecisionNodeData | BranchNodeData;
    next.config.labels = labels;
    let edges = state.edges;
    if (next.kind === 'Branch') {
      const decisionType = next.config.decision_type;
      const key = variableName(`${next.config.name}_decision`);
      const variable = next.variables[key];
      if (variable && variable.instructions === decisionInstructions(decisionType, old))
        variable.instructions = decisionInstructions(decisionType, labels);
      if (edit.op === 'add') next.config.branches.push(null);
      if (edit.op === 'remove') {
        const [removed] = next.config.branches.splice(edit.index, 1);
        if (removed) for (const name of ownedVariableNames(removed)) delete next.variables[name];
        edges = withoutSlot(state.edges, nodeId, edit.index);
      }
    } else if (next.variable.instructions === decisionInstructions(next.kind, old)) {
      next.variable.instructions = decisionInstructions(next.kind, labels);
    }
    return change({
      nodes: state.nodes.map((n) => (n.id === nodeId ? ({ ...n, data: next } as ProgramNode) : n)),
      edges,
    });
  },
});

/** The edges with those of slot `slot` of `nodeId` gone and the later slots' moved up one. */
function withoutSlot(edges: ProgramEdge[], nodeId: string, slot: number): ProgramEdge[] {
  return edges.flatMap((edge) => {
    const at = edge.source === nodeId ? slotOfHandle(edge.sourceHandle) : null;
    if (at === null || at < slot) return [edge];
    if (at === slot) return [];
    return [{ ...makeEdge(edge.source, edge.target, slotHandle(at - 1)), selected: edge.selected }];
  });
}

/** Change the question a Decision or a Branch asks. */
export const setQuestion = defineAction<{ nodeId: string; question: string }>({
  name: 'setQuestion',
  label: 'Edit question',
  perform: (state, { nodeId, question }) => {
    const node = state.nodes.find((n) => n.id === nodeId);
    if (!node) return refuse('That module no longer exists.');
    const { data } = node;
    if (data.kind !== 'Decision' && data.kind !== 'MultiDecision' && data.kind !== 'Branch')
      return refuse(`${aKind(data.kind)} asks no question.`);
    if (!question.trim()) return refuse('The question cannot be empty.');
    const next = cloneJson(data);
    next.config.question = question;
    return change({
      nodes: state.nodes.map((n) => (n.id === nodeId ? ({ ...n, data: next } as ProgramNode) : n)),
    });
  },
});
