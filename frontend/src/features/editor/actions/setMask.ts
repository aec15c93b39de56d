import { aKind } from '../model/document';
import { cloneJson } from '@/lib/json';
import type { ProgramNode } from '../model/graph';
import { change, defineAction, refuse } from './types';

/** Choose the fields an InMask keeps or an OutMask drops (by base key, as the engine matches). */
export const setMask = defineAction<{ nodeId: string; mask: string[] }>({
  name: 'setMask',
  label: 'Edit mask',
  perform: (state, { nodeId, mask }) => {
    const node = state.nodes.find((n) => n.id === nodeId);
    if (!node) return refuse('That module no longer exists.');
    const { data } = node;
    if (data.kind !== 'InMask' && data.kind !== 'OutMask')
      return refuse(`${aKind(data.kind)} has no mask.`);
    if (mask.some((field) => !field.trim())) return refuse('A masked field needs a name.');
    const next = cloneJson(data);
    next.config.mask = [...new Set(mask)];
    return change({
      nodes: state.nodes.map((n) => (n.id === nodeId ? ({ ...n, data: next } as ProgramNode) : n)),
    });
  },
});
