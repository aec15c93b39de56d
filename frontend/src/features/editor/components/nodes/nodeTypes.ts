import type { NodeTypes } from '@xyflow/react';
import type { ModuleKind } from '../../model/document';
import { BranchNode } from './BranchNode';
import { ChainOfThoughtNode } from './ChainOfThoughtNode';
import { DecisionNode } from './DecisionNode';
import { GeneratorNode } from './GeneratorNode';
import { InputNode } from './InputNode';
import { PlainNode } from './PlainNode';
import { SelfCritiqueNode } from './SelfCritiqueNode';

/** One component per node kind, defined once so React Flow never remounts nodes. */
export const nodeTypes = {
  Input: InputNode,
  Generator: GeneratorNode,
  ChainOfThought: ChainOfThoughtNode,
  Decision: DecisionNode,
  MultiDecision: DecisionNode,
  Branch: BranchNode,
  SelfCritique: SelfCritiqueNode,
  Concat: PlainNode,
  And: PlainNode,
  Or: PlainNode,
  Xor: PlainNode,
  Not: PlainNode,
  InMask: PlainNode,
  OutMask: PlainNode,
  Identity: PlainNode,
} satisfies Record<ModuleKind, NodeTypes[string]>;
