import type { ModuleKind } from '../../model/document';

/** Each kind's name as the canvas and the inspector show it. */
export const KIND_TEXT: Record<ModuleKind, string> = {
  Input: 'Input',
  Generator: 'Generator',
  ChainOfThought: 'Chain of thought',
  Decision: 'Decision',
  MultiDecision: 'Multi-decision',
  Branch: 'Branch',
  SelfCritique: 'Self-critique',
  Concat: 'Concat',
  And: 'And',
  Or: 'Or',
  Xor: 'Xor',
  Not: 'Not',
  InMask: 'In mask',
  OutMask: 'Out mask',
  Identity: 'Identity',
};
