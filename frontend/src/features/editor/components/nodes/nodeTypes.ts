import type { NodeTypes } from '@xyflow/react';
import type { ModuleKind } from '../../model/document';
import { ChainOfThoughtNode } from './ChainOfThoughtNode';
import { GeneratorNode } from './GeneratorNode';
import { InputNode } from './InputNode';

/** One component per node kind, defined once so React Flow never remounts nodes. */
export const nodeTypes = {
  Input: InputNode,
  Generator: GeneratorNode,
  ChainOfThought: ChainOfThoughtNode,
} satisfies Record<ModuleKind, NodeTypes[string]>;
