import type { ProgramNode } from '../model/graph';

/** The settings of the kinds beyond Inputs and Generators (labels, question, mask). */
export function KindSettings({ node }: { node: ProgramNode }) {
  void node;
  return null;
}
