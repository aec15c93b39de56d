import type { NodeProps } from '@xyflow/react';
import { memo } from 'react';
import type { PlainNode as PlainNodeType } from '../../model/graph';
import { useEditorStore } from '../../store/editorStore';
import { ModuleCard } from './ModuleNode';

/** Merges, masks, Not and Identity: no text to train; the card shows what they output. */
export const PlainNode = memo(function PlainNode({ id, data, selected }: NodeProps<PlainNodeType>) {
  const mask = data.config.mask;
  // An Identity given several inputs outputs each on its own (modules/identity.py): one handle each.
  const inputs = useEditorStore((s) =>
    data.kind === 'Identity' ? s.edges.filter((e) => e.target === id).length : 0,
  );
  const slots = inputs > 1 ? [...Array(inputs).keys()].map((i) => `input ${i + 1}`) : undefined;
  return (
    <ModuleCard
      id={id}
      kind={data.kind}
      name={data.config.name}
      selected={selected}
      slots={slots}
      detail={mask ? `${data.kind === 'InMask' ? 'keeps' : 'drops'} ${mask.join(', ')}` : undefined}
    />
  );
});
